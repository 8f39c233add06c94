// Reordering the axes of a dense C-order array: the work of `transpose`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace zarrgpu::codec {

// out has shape out_shape[k] = in_shape[perm[k]] and
// out[i_0, ..., i_{n-1}] = in[j] with j[perm[k]] = i_k. `perm` is a
// permutation of 0..n-1; in and out do not overlap; element_size > 0.
void permute_axes(std::span<const std::byte> in, std::span<std::byte> out,
                  std::span<const std::uint64_t> in_shape, std::span<const std::size_t> perm,
                  std::size_t element_size);

}  // namespace zarrgpu::codec
