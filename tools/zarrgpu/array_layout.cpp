#include "array_layout.hpp"

#include "zarrgpu/error.hpp"

namespace zarrgpu::cli {

std::vector<CodecSpec> little_endian_chain(std::vector<CodecSpec> b2b) {
  std::vector<CodecSpec> chain{{"bytes", json{{"endian", "little"}}}};
  for (auto& c : b2b) chain.push_back(std::move(c));
  return chain;
}

namespace {
json specs_to_json(const std::vector<CodecSpec>& chain) {
  json a = json::array();
  for (const auto& c : chain) {
    json o{{"name", c.name}};
    if (!c.configuration.empty()) o["configuration"] = c.configuration;
    a.push_back(std::move(o));
  }
  return a;
}
}  // namespace

CodecSpec sharding_codec(const std::vector<std::uint64_t>& inner_chunks, std::vector<CodecSpec> inner_chain) {
  json cfg{{"chunk_shape", inner_chunks},
           {"codecs", specs_to_json(inner_chain)},
           {"index_codecs", specs_to_json(little_endian_chain({{"crc32c", json::object()}}))},
           {"index_location", "end"}};
  return {"sharding_indexed", cfg};
}

ArrayMetadata build_array_metadata(const std::string& path, const std::vector<std::uint64_t>& shape, DataType dtype,
                                   const FillValue& fill, const ArrayLayout& layout,
                                   const std::vector<std::string>& dim_names, json attributes) {
  const ErrorContext ctx{path, "", "", ""};
  if (layout.chunks.size() != shape.size())
    throw Error(ErrorKind::invalid_argument, "the chunk shape has " + std::to_string(layout.chunks.size()) +
                                                 " dimensions, the array " + std::to_string(shape.size()), ctx);
  for (auto c : layout.chunks)
    if (c == 0) throw Error(ErrorKind::invalid_argument, "a chunk size is 0", ctx);
  ArrayMetadata m;
  m.zarr_format = layout.zarr_format;
  m.shape = shape;
  m.chunk_shape = layout.chunks;
  m.data_type = dtype;
  m.fill_value = fill;
  if (!attributes.is_object()) attributes = json::object();
  bool named = false;
  for (const auto& n : dim_names) named |= !n.empty();
  if (!dim_names.empty() && dim_names.size() != shape.size()) named = false;

  if (layout.zarr_format == 2) {
    if (!layout.inner_chunks.empty())
      throw Error(ErrorKind::invalid_argument, "sharding needs Zarr format 3 (use --format 3)", ctx);
    m.chunk_key_encoding = {ChunkKeyEncoding::Kind::v2, '.'};
    m.v2 = layout.encoding.v2;
    m.v2.endian = size_of(dtype) == 1 ? Endian::little : m.v2.endian;
    // Written as the _ARRAY_DIMENSIONS attribute (to_zattrs), strings only: "" stays "".
    if (named) m.dimension_names.emplace(dim_names.begin(), dim_names.end());
    // xarray needs _ARRAY_DIMENSIONS on every format 2 array, [] for a 0-d one.
    if (shape.empty()) m.dimension_names.emplace();
    m.attributes = std::move(attributes);
    m.codecs = v2_codec_chain(m.v2, dtype, shape.size(), path);
    return m;
  }

  m.chunk_key_encoding = {ChunkKeyEncoding::Kind::default_, '/'};
  attributes.erase("_ARRAY_DIMENSIONS");
  m.attributes = std::move(attributes);
  if (named) {
    std::vector<std::optional<std::string>> names;
    for (const auto& n : dim_names) names.push_back(n.empty() ? std::nullopt : std::optional<std::string>(n));
    m.dimension_names = std::move(names);
  }
  if (layout.inner_chunks.empty()) {
    m.codecs = layout.encoding.v3_chain;
  } else {
    if (layout.inner_chunks.size() != shape.size())
      throw Error(ErrorKind::invalid_argument, "the inner chunk shape has the wrong number of dimensions", ctx);
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (layout.inner_chunks[d] == 0 || layout.chunks[d] % layout.inner_chunks[d] != 0)
        throw Error(ErrorKind::invalid_argument,
                    "the shard shape must be a multiple of the inner chunk shape in every dimension (dimension " +
                        std::to_string(d) + ": shard " + std::to_string(layout.chunks[d]) + ", chunk " +
                        std::to_string(layout.inner_chunks[d]) + ")",
                    ctx);
    m.codecs = {sharding_codec(layout.inner_chunks, layout.encoding.v3_chain)};
  }
  return m;
}

}  // namespace zarrgpu::cli
