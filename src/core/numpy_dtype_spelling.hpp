// Every spelling numpy.dtype() takes for the Zarr data types (x86-64 and
// aarch64 Linux): type strings with or without a byte order ("<f8", "f8",
// ">i2"), one-character codes ("d", "?"), and names ("float64", "double",
// "int", "bool"). numcodecs filters write their dtype fields through
// numpy.dtype, so any of these may appear in their configurations.
#pragma once

#include <optional>
#include <string_view>

#include "zarrgpu/data_type.hpp"

namespace zarrgpu {

// Sets `endian` (native, little, when the string names none; little for
// 1-byte types); nullopt for anything else.
std::optional<DataType> from_numpy_dtype(std::string_view s, Endian* endian) noexcept;

}  // namespace zarrgpu
