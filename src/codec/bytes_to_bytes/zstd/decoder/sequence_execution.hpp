// Sequence execution of RFC 8878 §3.1.1.4: literal copies and matches,
// shared by the ranks of a group. Positions and offsets were validated by
// the sequence decoder before a batch gets here, so every write stays inside
// the block's room.
#pragma once

#include "config.hpp"
#include "literals.hpp"
#include "workspace.hpp"

namespace zarrgpu::zstd {

// Copies n bytes from src to dst where dst <= src or the ranges are apart
// (in-place literals sit after the write position). Each stride is read by
// the whole group before it is written.
template <class G>
ZARRGPU_HD_INLINE void group_copy_forward(G g, uint8_t* dst, const uint8_t* src, size_t n) {
  if constexpr (G::kSize == 1) {
    for (size_t k = 0; k < n; ++k) dst[k] = src[k];
  } else {
    for (size_t base = 0; base < n; base += G::kSize) {
      const size_t k = base + g.rank();
      uint8_t v = 0;
      if (k < n) v = src[k];
      g.sync();
      if (k < n) dst[k] = v;
    }
  }
}

// Copies n bytes between ranges that do not overlap (input to output): no
// ordering between ranks is needed.
template <class G>
ZARRGPU_HD_INLINE void group_copy_disjoint(G g, uint8_t* dst, const uint8_t* src, size_t n) {
  for (size_t k = g.rank(); k < n; k += G::kSize) dst[k] = src[k];
}

template <class G>
ZARRGPU_HD_INLINE void group_fill(G g, uint8_t* dst, uint8_t value, size_t n) {
  for (size_t k = g.rank(); k < n; k += G::kSize) dst[k] = value;
}

// A match: n bytes from `offset` bytes back; the source may overlap the
// destination, which repeats the last `offset` bytes.
template <class G>
ZARRGPU_HD_INLINE void group_copy_match(G g, uint8_t* dst, size_t offset, size_t n) {
  const uint8_t* src = dst - offset;
  if constexpr (G::kSize == 1) {
    for (size_t k = 0; k < n; ++k) dst[k] = src[k];  // byte order gives the repetition
  } else {
    if (offset >= G::kSize) {
      // A stride reads only bytes written before it.
      for (size_t base = 0; base < n; base += G::kSize) {
        const size_t k = base + g.rank();
        if (k < n) dst[k] = src[k];
        g.sync();
      }
    } else {
      // Byte k repeats src[k % offset]; the index advances by kSize % offset per stride.
      const uint32_t off = static_cast<uint32_t>(offset);
      const uint32_t step = G::kSize % off;
      uint32_t r = g.rank() % off;
      for (size_t k = g.rank(); k < n; k += G::kSize) {
        dst[k] = src[r];
        r += step;
        if (r >= off) r -= off;
      }
    }
  }
}

template <class G>
ZARRGPU_HD_INLINE void copy_literals(G g, uint8_t* dst, const Literals& lit, size_t from, size_t n) {
  if (lit.rle) {
    group_fill(g, dst, lit.rle_byte, n);
  } else if (lit.in_output) {
    group_copy_forward(g, dst, lit.data + from, n);  // in-place literals: read ahead of the writes
  } else {
    group_copy_disjoint(g, dst, lit.data + from, n);  // raw literals in the input
  }
}

// Executes a batch of validated sequences at out + *op.
template <class G>
ZARRGPU_HD void execute_sequences(G g, const Sequence* batch, uint32_t count, uint8_t* out, size_t* op,
                                  const Literals& lit, size_t* lit_pos) {
  size_t o = *op;
  size_t l = *lit_pos;
  for (uint32_t i = 0; i < count; ++i) {
    const Sequence s = batch[i];
    copy_literals(g, out + o, lit, l, s.literals_length);
    o += s.literals_length;
    l += s.literals_length;
    g.sync();
    group_copy_match(g, out + o, s.offset, s.match_length);
    o += s.match_length;
    g.sync();
  }
  *op = o;
  *lit_pos = l;
}

}  // namespace zarrgpu::zstd
