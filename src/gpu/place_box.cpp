#include "gpu/place_box.hpp"

namespace zarrgpu::gpu {

bool collapse_box(std::span<const std::uint64_t> count, std::span<const std::int64_t> src_stride,
                  std::span<const std::int64_t> out_stride, PlaceBox& box) {
  std::uint64_t c[64];
  std::int64_t s[64], o[64];
  unsigned n = 0;
  std::uint64_t elements = 1;
  for (std::size_t d = 0; d < count.size(); ++d) {
    elements *= count[d];
    if (count[d] == 1) continue;
    if (n > 0 && src_stride[d] * static_cast<std::int64_t>(count[d]) == s[n - 1] &&
        out_stride[d] * static_cast<std::int64_t>(count[d]) == o[n - 1]) {
      // dimension n-1 steps over exactly one run of d on both sides: one dimension
      c[n - 1] *= count[d];
      s[n - 1] = src_stride[d];
      o[n - 1] = out_stride[d];
      continue;
    }
    if (n == 64) return false;
    c[n] = count[d];
    s[n] = src_stride[d];
    o[n] = out_stride[d];
    ++n;
  }
  if (n == 0) {
    c[0] = 1; s[0] = 1; o[0] = 1; n = 1;
  }
  if (n > kMaxPlaceDims) return false;
  box.ndim = n;
  box.elements = count.empty() ? 1 : elements;
  for (unsigned d = 0; d < kMaxPlaceDims; ++d) {
    box.count[d] = d < n ? c[d] : 0;
    box.src_stride[d] = d < n ? s[d] : 0;
    box.out_stride[d] = d < n ? o[d] : 0;
  }
  return true;
}

void c_order_strides(std::span<const std::uint64_t> shape, std::span<std::int64_t> strides) {
  std::int64_t s = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= static_cast<std::int64_t>(shape[d]);
  }
}

std::uint64_t assign_tiles(std::span<PlaceBox> boxes, std::uint64_t tile_elements) {
  std::uint64_t t = 0;
  for (PlaceBox& b : boxes) {
    b.tile_begin = t;
    t += (b.elements + tile_elements - 1) / tile_elements;
  }
  return t;
}

}  // namespace zarrgpu::gpu
