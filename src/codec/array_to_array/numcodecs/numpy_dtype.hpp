// The dtype fields of the numcodecs value filters ("dtype", "astype",
// "encode_dtype", "decode_dtype").
#pragma once

#include <string_view>

#include "codec/configuration.hpp"
#include "zarrgpu/data_type.hpp"

namespace zarrgpu::codec {

// Which types a filter computes in: the numeric ones NumPy arithmetic covers
// (integers, float16/32/64), and for some filters bool too.
enum class FilterTypes { numeric, numeric_or_bool };

// Parses a field written through numpy.dtype (any spelling: "<i4", "i4",
// "int32", "float64", "f8", "d") into the data type the filter computes in.
// The byte order is ignored: chunks reach array -> array codecs in native order.
DataType filter_data_type(const Configuration& config, std::string_view field,
                          FilterTypes types = FilterTypes::numeric);
// The same, for an optional field; `fallback` when absent or null.
DataType filter_data_type(const Configuration& config, std::string_view field, DataType fallback,
                          FilterTypes types = FilterTypes::numeric);

}  // namespace zarrgpu::codec
