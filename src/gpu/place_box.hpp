// Placement of one decoded chunk into the output: the chunk's selected region
// is a strided box on both sides (plan.hpp's per-dimension progressions), so
// element k of the box, unravelled in C order over `count`, sits at
//   source  src_first + sum_d i_d * src_stride[d]   (elements of the decoded chunk)
//   output  out_first + sum_d i_d * out_stride[d]   (elements of the output)
// Strides are signed: a reverse slice steps backwards through the chunk, and
// a transpose codec is fused by giving the source dimensions the encoded
// array's (permuted) strides instead of copying the chunk first.
//
// Host code builds boxes (make_place_box, collapse_box); kernels and host
// tests share the element math (ZARRGPU_HD).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "gpu/hd.hpp"

namespace zarrgpu::gpu {

// After collapsing, a box has at most this many dimensions (a chunk with more
// non-mergeable dimensions is refused with Error(unsupported)).
inline constexpr unsigned kMaxPlaceDims = 8;

// src_offset of a box that writes the fill value instead of reading a chunk.
inline constexpr std::uint64_t kFillSource = ~std::uint64_t{0};

struct PlaceBox {
  std::uint64_t src_offset = kFillSource;  // bytes into the batch's source buffer, or kFillSource
  std::uint64_t src_first = 0;             // elements into the chunk
  std::uint64_t out_first = 0;             // elements into the output
  std::uint64_t elements = 0;              // product of count
  std::uint64_t tile_begin = 0;            // first tile of this box in its launch
  std::uint32_t ndim = 0;
  std::uint32_t swap = 0;                  // byte-swap component size (0: native order)
  std::uint64_t count[kMaxPlaceDims] = {};
  std::int64_t src_stride[kMaxPlaceDims] = {};
  std::int64_t out_stride[kMaxPlaceDims] = {};
};

// Element offsets (source, output) of box element `k` (k < elements).
struct PlaceOffsets {
  std::int64_t src;
  std::int64_t out;
};
ZARRGPU_HD PlaceOffsets place_offsets(const PlaceBox& b, std::uint64_t k) {
  std::int64_t src = static_cast<std::int64_t>(b.src_first);
  std::int64_t out = static_cast<std::int64_t>(b.out_first);
  for (int d = static_cast<int>(b.ndim) - 1; d >= 0; --d) {
    const std::uint64_t c = b.count[d];
    const std::uint64_t q = k / c;
    const std::int64_t i = static_cast<std::int64_t>(k - q * c);
    src += i * b.src_stride[d];
    out += i * b.out_stride[d];
    k = q;
  }
  return {src, out};
}

// True when the box is one run, contiguous and forward on both sides.
ZARRGPU_HD bool box_is_contiguous(const PlaceBox& b) {
  return b.ndim == 1 && b.src_stride[0] == 1 && b.out_stride[0] == 1;
}

// Drops dimensions of count 1 (their offsets are already in src_first /
// out_first) and merges neighbours that are contiguous on both sides, so a
// whole chunk landing in whole output rows becomes one run. Leaves at least
// one dimension. Returns false if more than kMaxPlaceDims remain
// (the input may have any number of dimensions: `count`, `src_stride`,
// `out_stride` spans of equal length).
bool collapse_box(std::span<const std::uint64_t> count, std::span<const std::int64_t> src_stride,
                  std::span<const std::int64_t> out_stride, PlaceBox& box);

// Element strides of a C-order array of `shape`.
void c_order_strides(std::span<const std::uint64_t> shape, std::span<std::int64_t> strides);

// Tiles of `tile_elements` per box, as an exclusive prefix into tile_begin;
// returns the total number of tiles.
std::uint64_t assign_tiles(std::span<PlaceBox> boxes, std::uint64_t tile_elements);

// The box that holds tile `tile` (boxes sorted by tile_begin, none empty).
ZARRGPU_HD std::uint32_t find_box(const PlaceBox* boxes, std::uint32_t n, std::uint64_t tile) {
  std::uint32_t lo = 0, hi = n;  // invariant: boxes[lo].tile_begin <= tile
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (boxes[mid].tile_begin <= tile) lo = mid; else hi = mid;
  }
  return lo;
}

}  // namespace zarrgpu::gpu
