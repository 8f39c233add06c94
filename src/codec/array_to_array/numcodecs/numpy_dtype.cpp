#include "codec/array_to_array/numcodecs/numpy_dtype.hpp"

#include <string>

#include "codec/array_to_array/numcodecs/numpy_scalar.hpp"
#include "core/numpy_dtype_spelling.hpp"

namespace zarrgpu::codec {

DataType filter_data_type(const Configuration& config, std::string_view field, FilterTypes types) {
  const std::string s = config.string(field);
  Endian endian;
  std::optional<DataType> t = from_numpy_dtype(s, &endian);
  if (!t) config.fail("field '" + std::string(field) + "' is not a NumPy dtype: \"" + s + "\"");
  const bool allowed = numpy::visit(*t, [](auto) {}) || (types == FilterTypes::numeric_or_bool && *t == DataType::bool_);
  if (!allowed) throw codec_error(ErrorKind::unsupported, "", "data type " + s + " is not supported by this filter");
  return *t;
}

DataType filter_data_type(const Configuration& config, std::string_view field, DataType fallback, FilterTypes types) {
  if (!config.has(field) || config.at(field).is_null()) return fallback;
  return filter_data_type(config, field, types);
}

}  // namespace zarrgpu::codec
