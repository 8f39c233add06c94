// The "dtype"/"astype" fields of the numcodecs value filters.
#pragma once

#include <string_view>

#include "codec/configuration.hpp"
#include "zarrgpu/data_type.hpp"

namespace zarrgpu::codec {

// Parses a NumPy dtype string ("<i4", "f8") into a data type the filters
// compute in (integers, float16/32/64). The byte order is ignored: chunks
// reach array -> array codecs in native order.
DataType filter_data_type(const Configuration& config, std::string_view field);
// The same, for an optional field; `fallback` when absent.
DataType filter_data_type(const Configuration& config, std::string_view field, DataType fallback);

}  // namespace zarrgpu::codec
