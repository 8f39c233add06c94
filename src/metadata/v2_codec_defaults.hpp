// Format 2 filters and compressors as numcodecs writes them, for .zarray
// documents that numcodecs (zarr-python) can build its codecs from.
#pragma once

#include "metadata/metadata.hpp"

namespace zarrgpu {

// `codec` ({"id": ...}) with the members numcodecs' get_config() writes,
// left-out ones at numcodecs' defaults (a filter's decoded dtype: `t` in byte
// order `e`), but for zstd's "checksum", which TensorStore refuses. Other
// members, and unknown ids, are kept as they are.
json v2_codec_with_defaults(const json& codec, DataType t, Endian e);

}  // namespace zarrgpu
