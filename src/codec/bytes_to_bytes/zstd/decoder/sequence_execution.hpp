// Sequence execution of RFC 8878 §3.1.1.4: literal copies and matches,
// shared by the ranks of a group. Positions and offsets were validated by
// the sequence decoder before a batch gets here, so every write stays inside
// the block's room.
#pragma once

#include "config.hpp"
#include "literals.hpp"
#include "workspace.hpp"

namespace zarrgpu::zstd {

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

// Stores the n <= 8 low bytes of v (little-endian) at dst: one 8-byte
// store when they fill an aligned word, else byte stores.
ZARRGPU_HD_INLINE void store_le_bytes(uint8_t* dst, uint64_t v, uint32_t n) {
#if defined(__CUDA_ARCH__)
  if (n == 8 && (reinterpret_cast<uintptr_t>(dst) & 7u) == 0) {
    *reinterpret_cast<uint64_t*>(dst) = v;
    return;
  }
#pragma unroll
  for (uint32_t i = 0; i < 8; ++i) {
    if (i < n) dst[i] = static_cast<uint8_t>(v >> (8 * i));
  }
#else
  for (uint32_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(v >> (8 * i));
#endif
}

// 8-byte words of literals each rank moves per pass of move_literals(): a
// pass is G::kSize x 8 x kLiteralWords literals, their loads all in flight
// before the pass's first store waits for one. A caller short of registers
// asks for fewer (kWords: match copy by chunk's pass 1, block_execution.hpp).
inline constexpr uint32_t kLiteralWords = 2;

// Moves literals lit[from, from + n) in passes: rank r takes the 8
// consecutive literals at 8r of each stride of G::kSize x 8, as one aligned
// 8-byte load (AlignedWords: zero-filled, never touched, outside the
// literals) and the word of rank r + 1 (a shuffle; the last rank loads its
// own), and hands them to place(k, v, m): literals k .. k + m - 1 (m <= 8)
// of the n, as v's low bytes. (A byte per rank and stride, as before,
// waited a load's latency per 128 literals: a quarter of the one-warp
// kernel's stall samples at level 1.) In-place literals
// (lit.in_output): each literal's destination is at or before its source
// and both grow with its index (the sequence decoder checked that the
// write position never passes the literals read position), so a pass
// that loads all its words before it stores never clobbers a literal still
// to be read.
template <uint32_t kWords = kLiteralWords, class G, class Place>
ZARRGPU_HD void move_literals(G g, const Literals& lit, size_t from, uint32_t n, Place&& place) {
  constexpr uint32_t kStride = G::kSize * 8;
  const uint32_t r = g.rank();
  if (lit.rle) {
    const uint64_t v = uint64_t{lit.rle_byte} * 0x0101010101010101ull;
    for (uint32_t k = 8 * r; k < n; k += kStride) place(k, v, n - k < 8 ? n - k : 8u);
    return;
  }
  if (n == 0) return;
  const auto off = static_cast<int64_t>(reinterpret_cast<uintptr_t>(lit.data) & 7u);
  const AlignedWords words{lit.data, static_cast<int64_t>(lit.size), off};
  const bool last_rank = r == G::kSize - 1;
  const uint32_t next = last_rank ? r : r + 1;
  for (uint32_t pass = 0; pass < n; pass += kStride * kWords) {
    uint64_t lo[kWords], hi[kWords];
    const int64_t at = static_cast<int64_t>(from + pass) + off;  // the pass's first literal in word units x 8
    const uint32_t shift = static_cast<uint32_t>(at & 7);
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t u = 0; u < kWords; ++u) {
      const int64_t j = (at >> 3) + u * G::kSize + r;
      lo[u] = hi[u] = 0;
      if (pass + u * kStride < n) {
        lo[u] = words.word(j);
        if (last_rank && shift != 0) hi[u] = words.word(j + 1);
      }
    }
    uint64_t v[kWords];
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t u = 0; u < kWords; ++u) {
      v[u] = lo[u];
      if (shift != 0 && pass + u * kStride < n) {  // the same in every rank: all shuffle together
        const uint64_t h = g.shuffle64(lo[u], next);
        v[u] = (lo[u] >> (8 * shift)) | ((last_rank ? hi[u] : h) << (64 - 8 * shift));
      }
    }
    if (lit.in_output) g.sync();  // every word of the pass is loaded before any literal is overwritten
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t u = 0; u < kWords; ++u) {
      const uint32_t k = pass + u * kStride + 8 * r;
      if (k < n) place(k, v[u], n - k < 8 ? n - k : 8u);
    }
  }
}

// A run of n literals from lit[from] to dst.
template <class G>
ZARRGPU_HD_INLINE void copy_literals(G g, uint8_t* dst, const Literals& lit, size_t from, size_t n) {
  move_literals(g, lit, from, static_cast<uint32_t>(n),
                [dst](uint32_t k, uint64_t v, uint32_t m) { store_le_bytes(dst + k, v, m); });
}

// n <= 4 GiB bytes from src to dst, ranges apart (a raw block's content),
// as copy_literals() moves them.
template <class G>
ZARRGPU_HD_INLINE void group_copy_bytes(G g, uint8_t* dst, const uint8_t* src, uint32_t n) {
  Literals run{};
  run.data = src;
  run.size = n;
  copy_literals(g, dst, run, 0, n);
}

// Bytes each rank moves per pass of a match pass, so that loads of several
// strides are in flight before their stores (match passes follow sources
// back and need registers: more spill past this).
inline constexpr uint32_t kMatchesUnroll = 4;

// Largest segment index s < end whose start is <= pos (segment 0 starts at 0).
// Batch: any batch with segment_start (SequenceBatch, block_execution.hpp's
// ChunkBatch).
template <class Batch>
ZARRGPU_HD_INLINE uint32_t find_segment(const Batch& b, uint32_t end, uint32_t pos) {
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
// Batch: any batch with literals_end and matches_end (SequenceBatch,
// block_execution.hpp's ChunkBatch), as for the two forms below.
// Each rank's literals grow with the pass: it finds the owner of its word's
// first literal by binary search above the last one (a word is 256
// literals past the rank's previous one: a linear scan there was a fifth
// of literal copy's stall samples at level 9), then follows it up within the
// word, in registers (move_literals() says why in-place literals are safe).
template <uint32_t kWords = kLiteralWords, class G, class Batch>
ZARRGPU_HD void place_batch_literals(G g, const Batch& b, uint32_t count, uint8_t* base, const Literals& lit,
                                     size_t lit_pos) {
  uint32_t owner = 0;
  uint32_t end = b.literals_end[0];  // literals of sequences 0..owner
  uint32_t shift = 0;                // match bytes before sequence `owner`
  move_literals<kWords>(g, lit, lit_pos, b.literals_end[count - 1], [&](uint32_t k, uint64_t v, uint32_t m) {
    if (k >= end) {
      // The first i > owner with literals_end[i] > k; it exists: k < literals_end[count - 1].
      uint32_t lo = owner + 1, hi = count - 1;
      while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (b.literals_end[mid] > k) hi = mid; else lo = mid + 1;
      }
      owner = lo;
      end = b.literals_end[owner];
      shift = b.matches_end[owner - 1];
    }
    for (uint32_t i = 0; i < m;) {
      while (k + i >= end) {
        shift = b.matches_end[owner];
        end = b.literals_end[++owner];
      }
      const uint32_t run = (end - k < m ? end - k : m) - i;  // literals of this owner among the m
      store_le_bytes(base + k + i + shift, v >> (8 * i), run);
      i += run;
    }
  });
}

// Pass 1 for a batch whose literal runs are all short (block_execution.hpp's
// literal copy picks it): rank r copies the runs of sequences r, r + G::kSize, ...,
// 8 literals at a time (load_le64_zero_filled: two aligned words on the
// GPU), with no search for owners and no turns for one rank's long run.
// Not for in-place literals (lit.in_output), where a rank could overwrite
// literals another still reads.
template <class G, class Batch>
ZARRGPU_HD void place_batch_literals_by_sequence(G g, const Batch& b, uint32_t count, uint8_t* base,
                                                 const Literals& lit, size_t lit_pos) {
  const uint64_t rle = uint64_t{lit.rle_byte} * 0x0101010101010101ull;
  for (uint32_t i = g.rank(); i < count; i += G::kSize) {
    const uint32_t before = i == 0 ? 0u : b.literals_end[i - 1];
    const uint32_t n = b.literals_end[i] - before;
    uint8_t* const dst = base + before + (i == 0 ? 0u : b.matches_end[i - 1]);
    const auto from = static_cast<int64_t>(lit_pos + before);
    for (uint32_t k = 0; k < n; k += 8) {
      const uint64_t v = lit.rle ? rle : load_le64_zero_filled(lit.data, from + k, lit.size);
      store_le_bytes(dst + k, v, n - k < 8 ? n - k : 8u);
    }
  }
}

// Pass 1 by sequence, as above, for a batch whose literals lie in `window`:
// rank r holds the literals' aligned word j0 + r (AlignedWords), loaded a
// batch ahead by block_execution.hpp's place_block_literals, and the batch's
// first literal is byte `first` (< 8) of word j0, first + the batch's
// literals <= 8 x G::kSize. Each run's words reach its rank by shuffles:
// no load waits on the batch's prefix sums (literal copy's literal loads, one round
// trip a batch on its chain, were 54% of its stall samples at level 19, 64
// KiB chunks, ncu).
template <class G, class Batch>
ZARRGPU_HD void place_batch_literals_from_window(G g, const Batch& b, uint32_t count, uint8_t* base,
                                                 uint64_t window, uint32_t first) {
  static_assert((G::kSize & (G::kSize - 1)) == 0, "ranks index the window's words modulo G::kSize");
  for (uint32_t round = 0; round < count; round += G::kSize) {  // the same in every rank: all shuffle together
    const uint32_t i = round + g.rank();
    uint32_t before = 0, n = 0;
    uint8_t* dst = base;
    if (i < count) {
      before = i == 0 ? 0u : b.literals_end[i - 1];
      n = b.literals_end[i] - before;
      dst = base + before + (i == 0 ? 0u : b.matches_end[i - 1]);
    }
    for (uint32_t k = 0; g.any(k < n); k += 8) {
      const uint32_t x = first + before + k;  // in the window; past it only where k >= n
      const uint32_t s = x & 7u;
      const uint64_t lo = g.shuffle64(window, (x >> 3) & (G::kSize - 1));
      const uint64_t hi = g.shuffle64(window, ((x >> 3) + 1) & (G::kSize - 1));
      if (k < n) store_le_bytes(dst + k, s == 0 ? lo : (lo >> (8 * s)) | (hi << (64 - 8 * s)), n - k < 8 ? n - k : 8u);
    }
  }
}

// How pass 2 meets bytes outside the batch. The identity for one-thread or
// one-group decoding of a frame, where everything before the batch is final.
// The block-parallel decoder's match copy (block_execution.hpp) writes some match
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

// Which sequences pass 2 runs. A batch either has every sequence's
// matches_end (SequenceBatch: ends[i] = matches_end[i], sequence i), or lists
// only the sequences with match bytes left to pass 2 (ChunkBatch: list_end
// and list_seq), so that finding a byte's sequence skips the many whose
// bytes were copied before the pass.
template <class Batch>
concept ListedMatches = requires(const Batch& b) {
  b.list_end[0];
  b.list_seq[0];
};

// The first slot s >= from with ends[s] > k; one exists below n (k is less
// than ends[n - 1]). A rank's bytes grow with the pass, so its slot only
// moves up: the one it had, else a binary search above it. (A linear scan
// from the batch's start stepped over every sequence before the byte's
// own, ~85% of them with no byte left to the pass: 18-37 dependent
// shared-memory loads a byte at level 19, host count of the bench's data,
// bench/results/zstd_gpu_history.md v21.)
ZARRGPU_HD_INLINE uint32_t find_match_slot(const uint32_t* ends, uint32_t n, uint32_t from, uint32_t k) {
  if (ends[from] > k) return from;
  uint32_t lo = from + 1, hi = n - 1;
  while (lo < hi) {
    const uint32_t mid = (lo + hi) >> 1;
    if (ends[mid] > k) hi = mid; else lo = mid + 1;
  }
  return lo;
}

// Pass 2 over `slots` entries of the batch's ends: its sequences, or those
// listed. Match byte k belongs to the first sequence i with matches_end[i] >
// k (or, listed, to list_seq[s] of the first slot s with list_end[s] > k),
// and is byte resolve.skipped(i) + k - (the end before it) of its match.
// The literals of the batch are in place.
template <class G, class Batch, class Resolve = BeforeBatchIsFinal>
ZARRGPU_HD void execute_batch_matches(G g, const Batch& b, uint32_t slots, uint8_t* base,
                                      Resolve&& resolve = BeforeBatchIsFinal{}) {
  constexpr uint32_t kMatchesStride = G::kSize * kMatchesUnroll;
  constexpr bool kListed = ListedMatches<Batch>;
  const uint32_t* ends;
  if constexpr (kListed) ends = b.list_end;
  else ends = b.matches_end;
  if (slots == 0) return;
  const uint32_t matches = ends[slots - 1];
  uint32_t slot = 0;
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
        slot = find_match_slot(ends, slots, slot, k);
        uint32_t owner = slot;
        if constexpr (kListed) owner = b.list_seq[slot];
        const uint32_t t = resolve.skipped(owner) + k - (slot > 0 ? ends[slot - 1] : 0u);
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
