#include "convert_layout.hpp"

#include "cli_args.hpp"
#include "codec_summary.hpp"
#include "node_tree.hpp"
#include "xarray_fill_value.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::cli {

std::vector<std::uint64_t> source_inner_chunks(const ArrayMetadata& src) {
  auto inner = inner_chunk_shape(src.codecs);
  return inner.empty() ? src.chunk_shape : inner;
}

namespace {
std::vector<CodecSpec> source_inner_chain(const ArrayMetadata& src) {
  if (!src.codecs.empty() && src.codecs.front().name == "sharding_indexed") {
    auto it = src.codecs.front().configuration.find("codecs");
    if (it != src.codecs.front().configuration.end()) return codec_specs_from_json(*it);
  }
  return src.codecs;
}
}  // namespace

ArrayMetadata::V2 v2_fields_for_chain(const std::vector<CodecSpec>& chain, std::size_t ndim, const std::string& path) {
  ArrayMetadata::V2 v2;
  auto fail = [&](const CodecSpec& c) {
    throw Error(ErrorKind::unsupported,
                "format 2 cannot express the codec '" + summarize_codec(c) + "'; choose one with --codec",
                {path, "", c.name, ""});
  };
  bool seen_bytes = false, seen_compressor = false;
  for (const auto& c : chain) {
    const json& cfg = c.configuration;
    if (c.name == "transpose" && !seen_bytes) {
      auto order = cfg.value("order", json::array());
      bool reversed = order.is_array() && order.size() == ndim;
      for (std::size_t d = 0; reversed && d < ndim; ++d) reversed = order[d] == ndim - 1 - d;
      if (!reversed) fail(c);
      v2.order = 'F';
    } else if ((c.name == "vlen-utf8" || c.name == "vlen-bytes") && !seen_bytes) {
      // numcodecs' object codec of a "|O" array: its first filter (Zarr v2 §"Filters").
      seen_bytes = true;
      v2.filters = json::array({{{"id", c.name}}});
    } else if (c.name == "bytes" && !seen_bytes) {
      seen_bytes = true;
      v2.endian = cfg.value("endian", std::string("little")) == "big" ? Endian::big : Endian::little;
    } else if (seen_bytes && !seen_compressor && c.name == "zstd") {
      seen_compressor = true;
      v2.compressor = json{{"id", "zstd"}, {"level", cfg.value("level", 3)}};
    } else if (seen_bytes && !seen_compressor && c.name == "gzip") {
      seen_compressor = true;
      v2.compressor = json{{"id", "gzip"}, {"level", cfg.value("level", 5)}};
    } else if (seen_bytes && !seen_compressor && c.name == "blosc") {
      seen_compressor = true;
      std::string sh = cfg.value("shuffle", std::string("noshuffle"));
      v2.compressor = json{{"id", "blosc"}, {"cname", cfg.value("cname", std::string("lz4"))},
                           {"clevel", cfg.value("clevel", 5)},
                           {"shuffle", sh == "noshuffle" ? 0 : sh == "shuffle" ? 1 : 2},
                           {"blocksize", cfg.value("blocksize", 0)}};
    } else {
      fail(c);
    }
  }
  return v2;
}

ArrayMetadata convert_array_metadata(const std::string& path, const ArrayMetadata& src, const ConvertOptions& opt) {
  const int format = opt.format.value_or(src.zarr_format);
  const auto names = dimension_names_of(src);
  const auto src_inner = source_inner_chunks(src);
  const bool src_sharded = inner_chunk_shape(src.codecs).size() == src.shape.size() && !src.shape.empty();
  const std::string shown = path.empty() ? "/" : path;

  ArrayLayout layout;
  layout.zarr_format = format;
  layout.chunks = src_inner;
  const bool in_group = !opt.strict_names;
  bool chunks_by_path = false, shard_by_path = false;
  const ChunkOption* chunks = opt.chunks ? opt.chunks->for_array(path, names, in_group, &chunks_by_path) : nullptr;
  const ChunkOption* shard = opt.shard ? opt.shard->for_array(path, names, in_group, &shard_by_path) : nullptr;
  if (chunks)
    layout.chunks = resolve_chunk_option(*chunks, src.shape, names, src_inner, "--chunks", shown,
                                         opt.strict_names || chunks_by_path);
  if (shard) {
    if (format != 3) throw UsageError("--shard needs Zarr format 3 (add --format 3)");
    auto shard_shape = resolve_chunk_option(*shard, src.shape, names, layout.chunks, "--shard", shown,
                                            opt.strict_names || shard_by_path);
    if (shard_shape != layout.chunks) {  // an array the option leaves alone stays unsharded
      layout.inner_chunks = layout.chunks;
      layout.chunks = shard_shape;
    }
  } else if (opt.shard && format != 3) {
    throw UsageError("--shard needs Zarr format 3 (add --format 3)");
  } else if (src_sharded && !chunks && format == 3) {
    layout.inner_chunks = src_inner;
    layout.chunks = src.chunk_shape;
  }

  if (opt.codec) {
    if (format == 3) layout.encoding.v3_chain = little_endian_chain(opt.codec->v3_codecs(size_of(src.data_type)));
    else layout.encoding.v2.compressor = opt.codec->v2_compressor();
    if (is_variable_length(src.data_type)) {
      // The string and bytes types are serialized by their vlen codec, not `bytes`.
      const std::string vlen = src.data_type == DataType::string ? "vlen-utf8" : "vlen-bytes";
      if (format == 3) layout.encoding.v3_chain.front() = {vlen, json::object()};
      else layout.encoding.v2.filters = json::array({{{"id", vlen}}});
    }
  } else if (format == 3) {
    layout.encoding.v3_chain = source_inner_chain(src);
  } else if (src.zarr_format == 2) {
    layout.encoding.v2 = src.v2;
  } else {
    layout.encoding.v2 = v2_fields_for_chain(source_inner_chain(src), src.shape.size(), path);
  }

  // xarray reads the missing-value marker from fill_value in format 2 and
  // from the _FillValue attribute in format 3: move it between the two.
  MissingValue missing = missing_value_for_format(src, format);
  if (format == 3 && missing.fill.is_null) {
    // What a v2 null reads as: zeros, empty strings, NaT for the time types.
    missing.fill = parse_fill_value(nullptr, src.data_type, 2);
    missing.fill.is_null = false;
  }
  return build_array_metadata(path, src.shape, src.data_type, missing.fill, layout, names,
                              std::move(missing.attributes));
}

}  // namespace zarrgpu::cli
