// Casting a whole buffer between two numeric types as NumPy's astype does,
// for the numcodecs filters that change the stored type.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>

#include "codec/array_to_array/numcodecs/numpy_scalar.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::codec::numpy {

// Copies n elements of `from` at `in` to `to` at `out`.
void cast_buffer(DataType from, DataType to, const std::byte* in, std::byte* out, std::size_t n);

// The fill value of an array of `from`, cast to `to`.
FillValue cast_fill_value(const FillValue& f, DataType from, DataType to);

}  // namespace zarrgpu::codec::numpy
