// The per-tile logic of place(): one thread block places up to
// kTileElements elements of one box.
//
// A box that is one contiguous forward run on both sides, with both ends
// 16-byte aligned, moves as 16-byte vectors with VectorsPerThread loads in
// flight per thread before the first store; everything else goes element by
// element through place_offsets (strided, reversed, transposed boxes).
#pragma once

#include <cstdint>

#include "gpu/place_box.hpp"
#include "gpu/vector_access.cuh"

namespace zarrgpu::gpu {

template <class T, int BlockThreads, int VectorsPerThread>
struct PlaceAgent {
  static constexpr std::uint64_t kTileBytes = std::uint64_t{BlockThreads} * VectorsPerThread * 16;
  static constexpr std::uint64_t kTileElements = kTileBytes / sizeof(T);

  __device__ __forceinline__ static void run(const PlaceBox& b, std::uint64_t tile_in_box,
                                             const std::byte* __restrict__ src_base,
                                             std::byte* __restrict__ out, Vec16 fill) {
    const std::uint64_t first = tile_in_box * kTileElements;
    const std::uint64_t remaining = b.elements - first;
    const std::uint64_t n = remaining < kTileElements ? remaining : kTileElements;
    const bool is_fill = b.src_offset == kFillSource;
    T* __restrict__ dst = reinterpret_cast<T*>(out);
    const T* __restrict__ src = is_fill ? nullptr : reinterpret_cast<const T*>(src_base + b.src_offset);
    const unsigned swap = b.swap;

    if (box_is_contiguous(b)) {
      T* d = dst + b.out_first + first;
      const T* s = is_fill ? nullptr : src + b.src_first + first;
      const bool aligned = (reinterpret_cast<std::uintptr_t>(d) % 16 == 0) &&
                           (is_fill || reinterpret_cast<std::uintptr_t>(s) % 16 == 0);
      if (aligned) {
        const std::uint64_t vectors = n * sizeof(T) / 16;
        Vec16* dv = reinterpret_cast<Vec16*>(d);
        if (is_fill) {
          const Vec16 pattern = replicate_pattern(fill, sizeof(T));
#pragma unroll
          for (int i = 0; i < VectorsPerThread; ++i) {
            const std::uint64_t v = std::uint64_t{i} * BlockThreads + threadIdx.x;
            if (v < vectors) store16(dv + v, pattern);
          }
        } else {
          const Vec16* sv = reinterpret_cast<const Vec16*>(s);
          Vec16 r[VectorsPerThread];
#pragma unroll
          for (int i = 0; i < VectorsPerThread; ++i) {
            const std::uint64_t v = std::uint64_t{i} * BlockThreads + threadIdx.x;
            if (v < vectors) r[i] = load16(sv + v);
          }
#pragma unroll
          for (int i = 0; i < VectorsPerThread; ++i) {
            const std::uint64_t v = std::uint64_t{i} * BlockThreads + threadIdx.x;
            if (v < vectors) store16(dv + v, swap_components(r[i], swap));
          }
        }
        // The last tile of a box may end inside a vector.
        for (std::uint64_t e = vectors * 16 / sizeof(T) + threadIdx.x; e < n; e += BlockThreads) {
          store_element(d + e, is_fill ? low_bytes<T>(fill) : swap_components(load_element(s + e), swap));
        }
        return;
      }
    }

    const T fill_value = low_bytes<T>(fill);
    for (std::uint64_t e = threadIdx.x; e < n; e += BlockThreads) {
      const PlaceOffsets o = place_offsets(b, first + e);
      store_element(dst + o.out, is_fill ? fill_value : swap_components(load_element(src + o.src), swap));
    }
  }
};

}  // namespace zarrgpu::gpu
