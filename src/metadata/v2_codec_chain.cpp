// The format 3 codec chain equivalent to a format 2 array's order, filters,
// dtype byte order and compressor, so the engine runs one kind of chain.
//
// Zarr v2 §"Chunks": a chunk is the array in `order`, passed through each
// filter in turn, then the compressor. Under the names zarr-python 3 uses:
//   order F (ndim > 1)         -> transpose [n-1 … 0]
//   delta, fixedscaleoffset    -> numcodecs.* array -> array (may change the type)
//   the (filtered) dtype       -> bytes {endian}
//   shuffle                    -> numcodecs.shuffle bytes -> bytes
//   zstd, gzip, blosc          -> zstd, gzip, blosc;  zlib, lz4 -> numcodecs.*
#include <numeric>

#include "metadata/json_field.hpp"

namespace zarrgpu {

namespace {
using metadata::FieldPath;
using metadata::fail;

bool is_value_filter(std::string_view id) { return id == "delta" || id == "fixedscaleoffset"; }
bool is_byte_filter(std::string_view id) { return id == "shuffle"; }

// The v2 codec object without its "id": the numcodecs.* configuration.
json configuration_of(const json& codec) {
  json c = codec;
  c.erase("id");
  return c;
}

std::int64_t int_member(const json& codec, std::string_view key, std::int64_t fallback, const FieldPath& at) {
  const json* v = metadata::find(codec, key);
  return v == nullptr ? fallback : metadata::as_int(*v, at / key);
}

CodecSpec blosc_spec(const json& c, std::size_t typesize, const FieldPath& at) {
  std::string cname = "lz4";
  if (const json* v = metadata::find(c, "cname")) cname = metadata::as_string(*v, at / "cname");
  if (cname != "lz4" && cname != "lz4hc" && cname != "blosclz" && cname != "zstd" && cname != "zlib" &&
      cname != "snappy")
    fail(ErrorKind::unsupported, at / "cname", "unknown blosc compressor \"" + cname + "\"");
  const std::int64_t shuffle = int_member(c, "shuffle", 1, at);
  std::string shuffle_name;
  switch (shuffle) {
    case 0: shuffle_name = "noshuffle"; break;
    case 1: shuffle_name = "shuffle"; break;
    case 2: shuffle_name = "bitshuffle"; break;
    // numcodecs AUTOSHUFFLE: bit shuffle for 1-byte items, byte shuffle otherwise.
    case -1: shuffle_name = typesize == 1 ? "bitshuffle" : "shuffle"; break;
    default:
      fail(ErrorKind::invalid_metadata, at / "shuffle",
           "expected -1, 0, 1 or 2, got " + std::to_string(shuffle));
  }
  const std::int64_t blocksize = int_member(c, "blocksize", 0, at);
  if (blocksize < 0) fail(ErrorKind::invalid_metadata, at / "blocksize", "must not be negative");
  return {"blosc",
          {{"cname", cname},
           {"clevel", int_member(c, "clevel", 5, at)},
           {"shuffle", shuffle_name},
           {"typesize", typesize},
           {"blocksize", blocksize}}};
}

}  // namespace

std::vector<CodecSpec> v2_codec_chain(const ArrayMetadata::V2& v2, DataType t, std::size_t ndim,
                                      std::string_view path) {
  const FieldPath at{path, ""};
  std::vector<CodecSpec> chain;

  if (v2.order != 'C' && v2.order != 'F')
    fail(ErrorKind::invalid_metadata, at / "order", std::string("expected \"C\" or \"F\", got \"") + v2.order + "\"");
  if (v2.order == 'F' && ndim > 1) {
    std::vector<std::uint64_t> order(ndim);
    std::iota(order.rbegin(), order.rend(), 0);  // [n-1, …, 0]
    chain.push_back({"transpose", {{"order", order}}});
  }

  // The type and byte order of what reaches the `bytes` codec.
  DataType encoded = t;
  Endian endian = v2.endian;
  std::vector<CodecSpec> byte_filters;
  if (!v2.filters.is_null()) {
    const FieldPath fat = at / "filters";
    metadata::expect_array(v2.filters, fat);
    for (std::size_t i = 0; i < v2.filters.size(); ++i) {
      const json& f = v2.filters[i];
      const FieldPath iat = fat[i];
      const std::string id = metadata::as_string(metadata::require(f, "id", iat), iat / "id");
      if (is_value_filter(id)) {
        if (!byte_filters.empty())
          fail(ErrorKind::unsupported, iat / "id",
               "filter \"" + id + "\" acts on values but follows a byte filter (\"" +
                   byte_filters.back().name + "\")");
        if (const json* astype = metadata::find(f, "astype")) {
          std::string s = metadata::as_string(*astype, iat / "astype");
          auto a = from_numpy_str(s, &endian);
          if (!a) fail(ErrorKind::unsupported, iat / "astype", "unknown data type \"" + s + "\"");
          encoded = *a;
        }
        chain.push_back({"numcodecs." + id, configuration_of(f)});
      } else if (is_byte_filter(id)) {
        byte_filters.push_back({"numcodecs." + id, configuration_of(f)});
      } else {
        fail(ErrorKind::unsupported, iat / "id", "unsupported filter \"" + id + "\"");
      }
    }
  }

  // Zarr v3 core §"bytes": endian is required unless the type has 1-byte items.
  json bytes_config = json::object();
  if (size_of(encoded) > 1) bytes_config["endian"] = endian == Endian::little ? "little" : "big";
  chain.push_back({"bytes", bytes_config});
  for (auto& b : byte_filters) chain.push_back(std::move(b));

  if (!v2.compressor.is_null()) {
    const FieldPath cat = at / "compressor";
    const json& c = v2.compressor;
    const std::string id = metadata::as_string(metadata::require(c, "id", cat), cat / "id");
    // Defaults are numcodecs' own, for configurations that leave a member out.
    if (id == "zstd") {
      bool checksum = false;
      if (const json* v = metadata::find(c, "checksum")) checksum = metadata::as_bool(*v, cat / "checksum");
      chain.push_back({"zstd", {{"level", int_member(c, "level", 0, cat)}, {"checksum", checksum}}});
    } else if (id == "gzip") {
      chain.push_back({"gzip", {{"level", int_member(c, "level", 1, cat)}}});
    } else if (id == "zlib") {
      chain.push_back({"numcodecs.zlib", {{"level", int_member(c, "level", 1, cat)}}});
    } else if (id == "lz4") {
      chain.push_back({"numcodecs.lz4", {{"acceleration", int_member(c, "acceleration", 1, cat)}}});
    } else if (id == "blosc") {
      // numcodecs takes the item size of the buffer it is given: the encoded
      // type, or bytes after a byte filter.
      chain.push_back(blosc_spec(c, byte_filters.empty() ? size_of(encoded) : 1, cat));
    } else {
      fail(ErrorKind::unsupported, cat / "id", "unsupported compressor \"" + id + "\"");
    }
  }
  return chain;
}

}  // namespace zarrgpu
