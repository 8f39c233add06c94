#include "codec/array_to_array/numcodecs/numpy_cast.hpp"

namespace zarrgpu::codec::numpy {

void cast_buffer(DataType from, DataType to, const std::byte* in, std::byte* out, std::size_t n) {
  visit(from, [&](auto f) {
    visit(to, [&](auto t) {
      using F = decltype(f);
      using T = decltype(t);
      for (std::size_t i = 0; i < n; ++i) {
        F x;
        std::memcpy(&x, in + i * sizeof(F), sizeof(F));
        const T y = cast<T>(x);
        std::memcpy(out + i * sizeof(T), &y, sizeof(T));
      }
    });
  });
}

FillValue cast_fill_value(const FillValue& f, DataType from, DataType to) {
  FillValue out;
  cast_buffer(from, to, f.bytes.data(), out.bytes.data(), 1);
  out.is_null = f.is_null;
  return out;
}

}  // namespace zarrgpu::codec::numpy
