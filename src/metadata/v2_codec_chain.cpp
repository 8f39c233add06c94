// The format 3 codec chain equivalent to a format 2 array's order, filters,
// dtype byte order and compressor, so the engine runs one kind of chain.
//
// Zarr v2 §"Chunks": a chunk is the array in `order`, passed through each
// filter in turn, then the compressor. Under the names zarr-python 3 uses:
//   order F (ndim > 1)         -> transpose [n-1 … 0]
//   delta, fixedscaleoffset,   -> numcodecs.* array -> array (may change the type)
//   astype, quantize, bitround,
//   packbits
//   the (filtered) dtype       -> bytes {endian}
//   vlen-utf8, vlen-bytes      -> the same names, array -> bytes ("|O" arrays)
//   zstd, gzip, blosc          -> zstd, gzip, blosc
//   shuffle, zlib, lz4, bz2,   -> numcodecs.* bytes -> bytes, as a filter (after the
//   lzma, crc32, adler32,         value filters) or as the compressor
//   crc32c, fletcher32
#include <numeric>
#include <optional>

#include "core/numpy_dtype_spelling.hpp"
#include "metadata/json_field.hpp"

namespace zarrgpu {

namespace {
using metadata::FieldPath;
using metadata::fail;

bool is_value_filter(std::string_view id) {
  return id == "delta" || id == "fixedscaleoffset" || id == "astype" || id == "quantize" || id == "bitround" ||
         id == "packbits";
}
// numcodecs' object codecs: array -> bytes for "|O" arrays.
bool is_object_codec(std::string_view id) { return id == "vlen-utf8" || id == "vlen-bytes"; }
// numcodecs codecs that zarrgpu runs under their own "numcodecs.<id>" name.
bool is_numcodecs_bytes_codec(std::string_view id) {
  return id == "shuffle" || id == "zlib" || id == "lz4" || id == "bz2" || id == "lzma" || id == "crc32" ||
         id == "adler32" || id == "crc32c" || id == "fletcher32";
}

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

// A format 2 bytes -> bytes codec (a compressor, or a filter after the value
// filters) as its format 3 equivalent; `typesize` is the item size of what it
// is given (blosc's default). Defaults are numcodecs' own, for configurations
// that leave a member out; levels are not checked here (only encoding uses them).
CodecSpec bytes_codec_spec(const std::string& id, const json& c, std::size_t typesize, const FieldPath& at,
                           std::string_view role) {
  if (id == "zstd") {
    bool checksum = false;
    if (const json* v = metadata::find(c, "checksum")) checksum = metadata::as_bool(*v, at / "checksum");
    return {"zstd", {{"level", int_member(c, "level", 0, at)}, {"checksum", checksum}}};
  }
  if (id == "gzip") return {"gzip", {{"level", int_member(c, "level", 1, at)}}};
  if (id == "zlib") return {"numcodecs.zlib", {{"level", int_member(c, "level", 1, at)}}};
  if (id == "lz4") return {"numcodecs.lz4", {{"acceleration", int_member(c, "acceleration", 1, at)}}};
  if (id == "blosc") return blosc_spec(c, typesize, at);
  if (is_numcodecs_bytes_codec(id)) return {"numcodecs." + id, configuration_of(c)};
  fail(ErrorKind::unsupported, at / "id", "unsupported " + std::string(role) + " \"" + id + "\"");
}

// The type a value filter stores: its "astype" ("encode_dtype" for astype),
// uint8 for packbits, else what it is given. `endian` follows the stored type.
DataType filter_output_type(const std::string& id, const json& f, DataType given, Endian* endian,
                            const FieldPath& at) {
  if (id == "packbits") return DataType::uint8;
  const char* key = id == "astype" ? "encode_dtype" : "astype";
  const json* v = metadata::find(f, key);
  if (v == nullptr || v->is_null()) return given;
  const std::string s = metadata::as_string(*v, at / key);
  auto t = from_numpy_dtype(s, endian);
  if (!t) fail(ErrorKind::unsupported, at / key, "unknown data type \"" + s + "\"");
  return *t;
}

// `codec`: the id of the filter or compressor being read, for error context.
std::vector<CodecSpec> build_chain(const ArrayMetadata::V2& v2, DataType t, std::size_t ndim, std::string_view path,
                                   std::string& codec) {
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
  std::optional<CodecSpec> object_codec;
  if (!v2.filters.is_null()) {
    const FieldPath fat = at / "filters";
    metadata::expect_array(v2.filters, fat);
    for (std::size_t i = 0; i < v2.filters.size(); ++i) {
      const json& f = v2.filters[i];
      const FieldPath iat = fat[i];
      const std::string id = metadata::as_string(metadata::require(f, "id", iat), iat / "id");
      codec = id;
      if (is_object_codec(id)) {
        // Zarr v2: the object codec turns the objects into bytes, so it comes
        // before any byte filter, and only "|O" arrays have one.
        if (!is_variable_length(t) || object_codec || !byte_filters.empty())
          fail(ErrorKind::unsupported, iat / "id",
               "filter \"" + id + "\" encodes the objects of a \"|O\" array and must be its first filter");
        object_codec = CodecSpec{id, json::object()};
      } else if (is_value_filter(id)) {
        if (is_variable_length(t))
          fail(ErrorKind::unsupported, iat / "id", "filter \"" + id + "\" does not apply to objects");
        if (!byte_filters.empty())
          fail(ErrorKind::unsupported, iat / "id",
               "filter \"" + id + "\" acts on values but follows a byte filter (\"" +
                   byte_filters.back().name + "\")");
        encoded = filter_output_type(id, f, encoded, &endian, iat);
        chain.push_back({"numcodecs." + id, configuration_of(f)});
      } else {
        // numcodecs hands a byte filter's output on as bytes: item size 1 after it.
        byte_filters.push_back(bytes_codec_spec(id, f, byte_filters.empty() ? size_of(encoded) : 1, iat, "filter"));
      }
    }
  }

  if (object_codec) {
    chain.push_back(std::move(*object_codec));
    encoded = DataType::uint8;  // what byte filters and blosc see: bytes
  } else {
    // Zarr v3 core §"bytes": endian is required unless the type has 1-byte items.
    json bytes_config = json::object();
    if (component_size(encoded) > 1) bytes_config["endian"] = endian == Endian::little ? "little" : "big";
    chain.push_back({"bytes", bytes_config});
  }
  for (auto& b : byte_filters) chain.push_back(std::move(b));

  if (!v2.compressor.is_null()) {
    const FieldPath cat = at / "compressor";
    const json& c = v2.compressor;
    const std::string id = metadata::as_string(metadata::require(c, "id", cat), cat / "id");
    codec = id;
    // numcodecs takes the item size of the buffer it is given: the encoded
    // type, or bytes after a byte filter.
    chain.push_back(bytes_codec_spec(id, c, byte_filters.empty() ? size_of(encoded) : 1, cat, "compressor"));
  }
  return chain;
}

}  // namespace

std::vector<CodecSpec> v2_codec_chain(const ArrayMetadata::V2& v2, DataType t, std::size_t ndim,
                                      std::string_view path) {
  std::string codec;
  try {
    return build_chain(v2, t, ndim, path, codec);
  } catch (const Error& e) {
    // Name the filter or compressor, as errors of format 3 codecs do.
    ErrorContext context;
    context.codec = codec;
    throw e.with_context(context);
  }
}

}  // namespace zarrgpu
