// A naive reference for selections: element by element, straight from the
// NumPy definition (orthogonal for lists of positions), to compare the engine's strided placement against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "zarrgpu/selection.hpp"

namespace zarrgpu::testing {

// `full` is the whole array in C order; returns the selection in C order.
inline std::vector<std::byte> reference_slice(std::span<const std::byte> full, std::span<const std::uint64_t> shape,
                                              std::span<const DimRange> ranges, std::size_t es) {
  std::uint64_t n = 1;
  for (const auto& r : ranges) n *= r.count;
  std::vector<std::byte> out(n * es);
  const std::size_t nd = shape.size();
  std::vector<std::uint64_t> k(nd, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t src = 0;
    for (std::size_t d = 0; d < nd; ++d) src = src * shape[d] + ranges[d].position(k[d]);
    std::memcpy(out.data() + i * es, full.data() + src * es, es);
    for (std::size_t d = nd; d-- > 0;) {
      if (++k[d] < ranges[d].count) break;
      k[d] = 0;
    }
  }
  return out;
}

// The inverse: writes `data` (the selection in C order) into `full`.
inline void reference_assign(std::span<std::byte> full, std::span<const std::uint64_t> shape,
                             std::span<const DimRange> ranges, std::span<const std::byte> data, std::size_t es) {
  std::uint64_t n = 1;
  for (const auto& r : ranges) n *= r.count;
  const std::size_t nd = shape.size();
  std::vector<std::uint64_t> k(nd, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t dst = 0;
    for (std::size_t d = 0; d < nd; ++d) dst = dst * shape[d] + ranges[d].position(k[d]);
    std::memcpy(full.data() + dst * es, data.data() + i * es, es);
    for (std::size_t d = nd; d-- > 0;) {
      if (++k[d] < ranges[d].count) break;
      k[d] = 0;
    }
  }
}

}  // namespace zarrgpu::testing
