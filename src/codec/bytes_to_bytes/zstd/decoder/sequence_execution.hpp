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

// Copies n elements between ranges that do not overlap (input to output,
// tables to scratch): no ordering between ranks is needed.
template <class G, class T>
ZARRGPU_HD_INLINE void group_copy_disjoint(G g, T* dst, const T* src, size_t n) {
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

// Bytes each rank moves per pass of a batch copy, so that loads of several
// strides are in flight before their stores: literal passes are cheap, match
// passes follow sources back and need more registers (more spill past these).
inline constexpr uint32_t kLiteralsUnroll = 4;
inline constexpr uint32_t kMatchesUnroll = 4;

// Largest segment index s < end whose start is <= pos (segment 0 starts at 0).
ZARRGPU_HD_INLINE uint32_t find_segment(const SequenceBatch& b, uint32_t end, uint32_t pos) {
  uint32_t lo = 0, hi = end;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) >> 1;
    if (b.segment_start[mid] <= pos) lo = mid; else hi = mid;
  }
  return lo;
}

// Byte t of a match of `offset` whose first byte is at `start` repeats the
// byte at start - offset + (t mod offset) (§3.1.1.4: the match may overlap itself).
ZARRGPU_HD_INLINE int64_t match_source(uint32_t start, uint32_t offset, uint32_t t) {
  return static_cast<int64_t>(start) - offset + (t >= offset ? t % offset : t);
}

// A batch of `count` validated sequences at `base` (sequence_execution's
// batch form: the whole group on all of the batch at once instead of
// sequence after sequence), in two passes:
//  1. place_batch_literals(): every literal of the batch goes to its place.
//  2. execute_batch_matches(): every match byte of the batch. Its source is
//     followed back through the batch's earlier matches until it lands on a
//     byte that is final — a literal of the batch, or a byte before the
//     batch — and copied from there. Reads and writes of this pass touch
//     disjoint bytes.
// execute_sequences() runs both; the block-parallel decoder runs pass 1 for
// every block of a chunk before pass 2 of any (block_execution.hpp).

// Pass 1. Literal k of the batch belongs to the first sequence i with
// literals_end[i] > k and goes to k plus the match bytes before sequence i.
// In-place literals (lit.in_output): each literal's destination is at or
// before its source (the sequence decoder checked that the write position
// never passes the literals read position), and both grow with the
// literal's index, so a pass that loads its strides before storing them
// never clobbers a literal that is still to be read.
template <class G>
ZARRGPU_HD void place_batch_literals(G g, const SequenceBatch& b, uint32_t count, uint8_t* base, const Literals& lit,
                                     size_t lit_pos) {
  constexpr uint32_t kLiteralsStride = G::kSize * kLiteralsUnroll;
  const uint32_t literals = b.literals_end[count - 1];
  // RLE literals have no data pointer: no arithmetic on it (null + n is UB).
  const uint8_t* src = (lit.rle || lit.data == nullptr) ? nullptr : lit.data + lit_pos;
  uint32_t owner = 0;
  for (uint32_t pass = 0; pass < literals; pass += kLiteralsStride) {
    uint8_t v[kLiteralsUnroll];
    uint32_t dst[kLiteralsUnroll];
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t u = 0; u < kLiteralsUnroll; ++u) {
      const uint32_t k = pass + u * G::kSize + g.rank();
      dst[u] = ~0u;
      if (k < literals) {
        while (b.literals_end[owner] <= k) ++owner;
        dst[u] = k + (owner > 0 ? b.matches_end[owner - 1] : 0u);
        v[u] = lit.rle ? lit.rle_byte : src[k];
      }
    }
    if (lit.in_output) g.sync();  // this pass's literals are loaded before any is overwritten
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t u = 0; u < kLiteralsUnroll; ++u) {
      if (dst[u] != ~0u) base[dst[u]] = v[u];
    }
  }
}

// How pass 2 meets bytes outside the batch. The identity for one-thread or
// one-group decoding of a frame, where everything before the batch is final.
// The block-parallel decoder's D2 (block_execution.hpp) writes some match
// bytes before pass 2 (those whose source lies in an earlier block) and
// maps what else lies before the block.
struct BeforeBatchIsFinal {
  // A final position holding the byte at q < 0 (relative to the batch).
  ZARRGPU_HD_INLINE int64_t operator()(int64_t q) const { return q; }
  // The leading bytes of sequence i's match that were written before the
  // batch and that b.matches_end leaves out (none here).
  ZARRGPU_HD_INLINE uint32_t skipped(uint32_t /*i*/) const { return 0; }
  // Whether byte tt of the batch's match at `start` (relative to the batch)
  // with `offset` holds the same byte as a position that is final already:
  // then *at is that position (the byte itself when it was written before).
  ZARRGPU_HD_INLINE bool written(uint32_t /*start*/, uint32_t /*offset*/, uint32_t /*tt*/, int64_t* /*at*/) const {
    return false;
  }
};

// Pass 2. Match byte k belongs to the first sequence i with matches_end[i] >
// k, and is byte resolve.skipped(i) + k - matches_end[i - 1] of its match.
// The literals of the batch are in place.
template <class G, class Resolve = BeforeBatchIsFinal>
ZARRGPU_HD void execute_batch_matches(G g, const SequenceBatch& b, uint32_t count, uint8_t* base,
                                      Resolve&& resolve = BeforeBatchIsFinal{}) {
  constexpr uint32_t kMatchesStride = G::kSize * kMatchesUnroll;
  const uint32_t matches = b.matches_end[count - 1];
  uint32_t owner = 0;
  for (uint32_t pass = 0; pass < matches; pass += kMatchesStride) {
    uint8_t v[kMatchesUnroll];
    uint32_t dst[kMatchesUnroll];
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t u = 0; u < kMatchesUnroll; ++u) {
      const uint32_t k = pass + u * G::kSize + g.rank();
      dst[u] = ~0u;
      if (k < matches) {
        while (b.matches_end[owner] <= k) ++owner;
        const uint32_t t = resolve.skipped(owner) + k - (owner > 0 ? b.matches_end[owner - 1] : 0u);
        const uint32_t start = b.segment_start[2 * owner + 1];
        int64_t q = 0;
        if (resolve.written(start, b.offset[owner], t, &q)) {
          if (q == int64_t{start} + t) continue;  // written already: nothing to do
          v[u] = base[q];
          dst[u] = start + t;
          continue;
        }
        dst[u] = start + t;
        q = match_source(start, b.offset[owner], t);
        uint32_t segment = 2 * owner + 1;
        // q < the start of `segment`: it lies before the batch, in a
        // literal segment, or in an earlier match, which repeats a byte
        // further back still (or one written already).
        while (q >= 0) {
          segment = find_segment(b, segment, static_cast<uint32_t>(q));
          if ((segment & 1u) == 0) break;
          const uint32_t m_start = b.segment_start[segment];
          const uint32_t tt = static_cast<uint32_t>(q) - m_start;
          if (resolve.written(m_start, b.offset[segment >> 1], tt, &q)) break;
          q = match_source(m_start, b.offset[segment >> 1], tt);
        }
        if (q < 0) q = resolve(q);
        v[u] = base[q];
      }
    }
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t u = 0; u < kMatchesUnroll; ++u) {
      if (dst[u] != ~0u) base[dst[u]] = v[u];
    }
  }
}

// Both passes at out + *op, everything before the batch final; advances
// *op and *lit_pos past the batch.
template <class G>
ZARRGPU_HD void execute_sequences(G g, const SequenceBatch& b, uint32_t count, uint8_t* out, size_t* op,
                                  const Literals& lit, size_t* lit_pos) {
  uint8_t* const base = out + *op;
  place_batch_literals(g, b, count, base, lit, *lit_pos);
  g.sync();  // the literals are in place before matches read them
  execute_batch_matches(g, b, count, base);
  *op += b.literals_end[count - 1] + b.matches_end[count - 1];
  *lit_pos += b.literals_end[count - 1];
}

}  // namespace zarrgpu::zstd
