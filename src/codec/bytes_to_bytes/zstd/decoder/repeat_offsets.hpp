// Repeat offsets (RFC 8878 §3.1.1.5) as a map from the three offsets that
// enter a run of sequences to the three that leave it. Every slot that
// leaves is either a new offset the run decoded (a constant) or an entering
// slot minus a count (Offset_Value 3 with no literals means rep[0] - 1, in
// wrapping uint32 arithmetic, as resolve_offset() computes it). Maps compose
// associatively, so a block's map is computed from its sequences alone, a
// frame's blocks get their entering offsets by a scan over block maps, and
// the ranks of a group scan their runs of a block the same way.
#pragma once

#include "config.hpp"

namespace zarrgpu::zstd {

struct RepeatMap {
  uint32_t value[3];  // src < 0: the constant; else subtracted from entering slot src
  int8_t src[3];
};

ZARRGPU_HD_INLINE RepeatMap repeat_identity() { return RepeatMap{{0, 0, 0}, {0, 1, 2}}; }

// Selects with constant indices only: keeps maps in registers on the GPU.
ZARRGPU_HD_INLINE uint32_t pick3(const uint32_t v[3], int j) { return j == 0 ? v[0] : j == 1 ? v[1] : v[2]; }
ZARRGPU_HD_INLINE int8_t pick3(const int8_t v[3], int j) { return j == 0 ? v[0] : j == 1 ? v[1] : v[2]; }

ZARRGPU_HD_INLINE uint32_t repeat_slot(const RepeatMap& m, uint32_t i, const uint32_t in[3]) {
  return m.src[i] < 0 ? m.value[i] : pick3(in, m.src[i]) - m.value[i];
}

// out = m(in); out may not alias in.
ZARRGPU_HD_INLINE void repeat_apply(const RepeatMap& m, const uint32_t in[3], uint32_t out[3]) {
  for (uint32_t i = 0; i < 3; ++i) out[i] = repeat_slot(m, i, in);
}

// The map of `first` followed by `then`.
ZARRGPU_HD_INLINE RepeatMap repeat_compose(const RepeatMap& first, const RepeatMap& then) {
  RepeatMap r;
  for (uint32_t i = 0; i < 3; ++i) {
    if (then.src[i] < 0) {
      r.src[i] = -1;
      r.value[i] = then.value[i];
    } else {
      const int j = then.src[i];
      const int8_t s = pick3(first.src, j);
      const uint32_t v = pick3(first.value, j);
      r.src[i] = s;
      r.value[i] = s < 0 ? v - then.value[i] : v + then.value[i];
    }
  }
  return r;
}

// One sequence's effect on the map, as resolve_offset() resolves it, in
// selects: Offset_Value > 3 enters a new offset; a repeat index 0 leaves
// the map as it is (only Offset_Value 1 with no literals, or 0, gives it);
// 1 and 2 move that slot to the front; anything else is rep[0] - 1. No
// branch: in sequence decoding's loop (a lane a block) the lanes of a warp take different
// cases, and a branch per case ran them one after another.
ZARRGPU_HD_INLINE void repeat_step(RepeatMap& m, uint32_t offset_value, uint32_t literals_length) {
  const uint32_t index = offset_value - (literals_length != 0 ? 1u : 0u);
  const bool fresh = offset_value > 3;  // then index >= 3
  // The slot that moves to the front, each candidate computed and then
  // picked (as a chain of ?: nvcc branched on the index).
  int8_t s = fresh ? int8_t{-1} : m.src[0];
  uint32_t v = fresh ? offset_value - 3 : m.value[0] + (m.src[0] < 0 ? ~0u : 1u);
  s = index == 2 ? m.src[2] : s;
  v = index == 2 ? m.value[2] : v;
  s = index == 1 ? m.src[1] : s;
  v = index == 1 ? m.value[1] : v;
  const bool keep = index == 0;
  const bool keep2 = index <= 1;  // index 1 swaps the front two slots; slot 2 stays
  m.src[2] = keep2 ? m.src[2] : m.src[1];
  m.value[2] = keep2 ? m.value[2] : m.value[1];
  m.src[1] = keep ? m.src[1] : m.src[0];
  m.value[1] = keep ? m.value[1] : m.value[0];
  m.src[0] = keep ? m.src[0] : s;
  m.value[0] = keep ? m.value[0] : v;
}

}  // namespace zarrgpu::zstd
