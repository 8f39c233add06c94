#include "metadata/v2_codec_defaults.hpp"

#include <string>

namespace zarrgpu {

json v2_codec_with_defaults(const json& codec, DataType t, Endian e) {
  if (!codec.is_object() || !codec.contains("id") || !codec["id"].is_string()) return codec;
  const std::string id = codec["id"].get<std::string>();
  json d;  // numcodecs' defaults, as its get_config() writes them
  // Not zstd's "checksum": TensorStore's zarr driver refuses that member.
  if (id == "zstd") d = {{"level", 0}};
  else if (id == "gzip" || id == "zlib" || id == "bz2") d = {{"level", 1}};
  else if (id == "lz4") d = {{"acceleration", 1}};
  else if (id == "blosc") d = {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", 1}, {"blocksize", 0}};
  else if (id == "lzma") d = {{"format", 1}, {"check", -1}, {"preset", nullptr}, {"filters", nullptr}};
  else if (id == "shuffle") d = {{"elementsize", 4}};
  else if (id == "astype") d = {{"decode_dtype", numpy_str(t, e)}};
  else if (id == "quantize") d = {{"dtype", numpy_str(t, e)}};
  else if (id != "delta" && id != "fixedscaleoffset") return codec;
  json out = codec;
  if (d.is_null()) d = json::object();
  for (const auto& [key, value] : d.items())
    if (!out.contains(key)) out[key] = value;
  // Delta, FixedScaleOffset and Quantize write astype = dtype when not given.
  if ((id == "delta" || id == "fixedscaleoffset" || id == "quantize") && !out.contains("astype") && out.contains("dtype"))
    out["astype"] = out["dtype"];
  return out;
}

}  // namespace zarrgpu
