#include "codec/array_to_array/numcodecs/numpy_dtype.hpp"

#include <string>

#include "codec/array_to_array/numcodecs/numpy_scalar.hpp"

namespace zarrgpu::codec {

DataType filter_data_type(const Configuration& config, std::string_view field) {
  const std::string s = config.string(field);
  Endian endian;
  std::optional<DataType> t = from_numpy_str(s, &endian);
  if (!t) config.fail("field '" + std::string(field) + "' is not a NumPy dtype: \"" + s + "\"");
  if (!numpy::visit(*t, [](auto) {}))
    throw codec_error(ErrorKind::unsupported, "", "data type " + s + " is not supported by this filter");
  return *t;
}

DataType filter_data_type(const Configuration& config, std::string_view field, DataType fallback) {
  if (!config.has(field) || config.at(field).is_null()) return fallback;
  return filter_data_type(config, field);
}

}  // namespace zarrgpu::codec
