// Block-parallel decoding, execution: the copies of each block (§3.1.1.4)
// into its place in the output, which resolution fixed, from validated
// sequences with resolved offsets. Matches may read the output of earlier
// blocks of the frame, so D runs in two steps with nothing to wait for:
//  Literal copy write_block_literals() — every block of the chunk, in any order: raw
//     and RLE blocks whole, and every literal of a compressed block. It also
//     turns each sequence's Literals_Length into its match's start.
//  Match copy execute_block_matches() — every compressed block, in any order, after
//     Literal copy of all of them, in two steps (on the GPU, two kernels):
//     Cross-block match copy copy_cross_block_bytes(): the match bytes whose source lies in an
//     earlier block, followed back through that block's matches
//     (EarlierBlocks) until they land on a literal or a raw or RLE block,
//     final since literal copy; any number of warps may share a block's sequences.
//     In-block match copy execute_in_block_matches(): the other match bytes, batch after
//     batch: their sources are in the block, final once the batches before
//     them (and cross-block match copy) ran.
// So every block runs as soon as a group is free for it, and no group waits
// for another.
#pragma once

#include "config.hpp"
#include "frame_walk.hpp"
#include "sequence_execution.hpp"
#include "workspace.hpp"
#include "xxhash64.hpp"

namespace zarrgpu::zstd {

// The literals of a block as entropy decoding left them.
ZARRGPU_HD_INLINE Literals block_literals(const uint8_t* chunk, const BlockRecord& b, const uint8_t* literals_scratch) {
  Literals lit{};
  lit.size = b.literals_size;
  lit.rle = b.literals_type == LiteralsType::rle;
  lit.rle_byte = b.rle_byte;
  lit.in_output = false;  // raw literals in the input, Huffman literals in the scratch: apart from the output
  lit.data = b.literals_type == LiteralsType::raw ? chunk + b.literals_src
             : lit.rle                            ? nullptr
                                                  : literals_scratch + b.literals_offset;
  return lit;
}

// Literal copy also indexes the chunk's matches by 32-byte granule of its output.
// Entry q holds the first of the chunk's sequences whose match ends after
// byte 32q (match starts count from the chunk's start and its triples lie
// in block order, so match ends grow strictly across the whole chunk; a
// granule with no match ending after it in its block takes the first
// sequence of the blocks after it), and a bit for each byte of the granule
// where a match ends (its last byte). The sequence whose match is the
// first to end at or after byte p is then entry p / 32's first plus the
// bits below p % 32: one 8-byte load, no search, no lookup of the block
// that holds p. A match copy walk starts there. (Scanning the triples after the
// entry instead, one dependent load at a time, took 4.5 scans a step per
// warp on smooth float fields, ~11 output bytes per sequence, the lanes
// diverging: 30% of cross-block match copy's stall samples.) The index is part of every
// chunk's scratch, 1/4 byte per output byte; a chunk of n output bytes
// needs granule_entries(n) entries, their bits zero before literal copy (literal copy sets
// them atomically: a granule where a block ends is shared with the next).
inline constexpr uint32_t kGranuleShift = 5;
inline constexpr uint32_t kGranuleMask = (1u << kGranuleShift) - 1u;
ZARRGPU_HD_INLINE uint64_t granule_entries(uint64_t bytes) { return (bytes >> kGranuleShift) + 1; }

struct alignas(8) GranuleEntry {
  uint32_t first;  // the first sequence whose match ends after the granule's first byte
  uint32_t ends;   // bit j: a match ends (its last byte) at byte j of the granule
};
static_assert(sizeof(GranuleEntry) == 8 && (1u << kGranuleShift) == 32, "a bit of `ends` per byte of a granule");

// The granules whose first byte lies in a block's output [start, end): its
// `count` sequences t[0, count) own those up to their match ends (sequence
// i, the chunk's sequence first + i, the granules from ceil(end(i - 1) /
// 32) to below ceil(end(i) / 32)), and the rest go to the chunk's next
// sequence, first + count. Each rank writes its sequences' granules (two
// loads each, not a binary search) and the bits of their match ends,
// kGranuleLoadsAhead sequences at a time with all their loads first (one
// at a time, the loop waited on each: a fifth of literal copy's stall samples at
// level 19, 64 KiB chunks, ncu). A group may index only
// sequences [i0, i1) (every match start in place), and the granules past
// the last sequence or not (`tail`). No index (granules null): nothing, for
// chunks whose match copy runs by chunk (execute_chunk_matches and write_chunk_output read none).
inline constexpr uint32_t kGranuleLoadsAhead = 4;

template <class G>
ZARRGPU_HD void index_block_granules(G g, GranuleEntry* granules, uint64_t start, uint64_t end,
                                     const SequenceTriple* t, uint32_t first, uint32_t count, uint32_t i0 = 0,
                                     uint32_t i1 = ~0u, bool tail = true) {
  constexpr uint64_t kGranule = uint64_t{1} << kGranuleShift;
  auto ceil_granule = [](uint64_t byte) { return (byte + kGranule - 1) >> kGranuleShift; };
  auto end_of = [t](uint32_t i) { return uint64_t{t[i].match_start} + t[i].match_length; };
  if (granules == nullptr) return;
  const uint64_t lo = ceil_granule(start), hi = ceil_granule(end);
  if (i1 > count) i1 = count;
  for (uint32_t base = i0 + g.rank(); base < i1; base += kGranuleLoadsAhead * G::kSize) {
    uint64_t own_end[kGranuleLoadsAhead], prev_end[kGranuleLoadsAhead];
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t u = 0; u < kGranuleLoadsAhead; ++u) {
      const uint32_t i = base + u * G::kSize;
      own_end[u] = i < i1 ? end_of(i) : 0;
      prev_end[u] = i < i1 && i > 0 ? end_of(i - 1) : 0;
    }
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t u = 0; u < kGranuleLoadsAhead; ++u) {
      const uint32_t i = base + u * G::kSize;
      if (i >= i1) break;
      const uint64_t from = i == 0 ? lo : ceil_granule(prev_end[u]);
      const uint64_t own = ceil_granule(own_end[u]), to = own < hi ? own : hi;
      for (uint64_t q = from; q < to; ++q) granules[q].first = first + i;
      const uint64_t last = own_end[u] - 1;  // match lengths are >= 3
      atomic_or32(&granules[last >> kGranuleShift].ends, 1u << (last & kGranuleMask));
    }
  }
  if (!tail) return;
  const uint64_t past = count == 0 ? lo : ceil_granule(end_of(count - 1));
  for (uint64_t q = past + g.rank(); q < hi; q += G::kSize) granules[q].first = first + count;
}

// The lengths of a run of a block's sequences (before literal copy turns their
// Literals_Length into match starts): its literals, and its output
// (literals and match bytes). A valid block's fit in 32 bits.
struct SequenceLengths {
  uint32_t literals;
  uint32_t output;
};

// The lengths of t[from, to), summed across the group: every rank gets them.
template <class G>
ZARRGPU_HD SequenceLengths sum_sequence_lengths(G g, const SequenceTriple* t, uint32_t from, uint32_t to) {
  uint32_t literals = 0, output = 0;
  for (uint32_t i = from + g.rank(); i < to; i += G::kSize) {
    literals += t[i].literals_length;
    output += t[i].literals_length + t[i].match_length;
  }
  literals = g.inclusive_sum(literals);
  output = g.inclusive_sum(output);
  return SequenceLengths{static_cast<uint32_t>(g.shuffle64(literals, G::kSize - 1)),
                         static_cast<uint32_t>(g.shuffle64(output, G::kSize - 1))};
}

// Literal copy of sequences t[from, to) of a compressed block whose output starts at
// block_out (chunk position block_start), batch after batch: their literals
// to their place, and their Literals_Length turned into match starts. *op
// and *lit_pos: where the run starts in the block's output and literals
// (the lengths of the sequences before it), and where it ends.
//
// Each rank loads its sequence of the next batch before it places this
// batch's literals: the batch's prefix sums waited on those loads (a fifth
// of literal copy's stall samples at level 19, 64 KiB chunks, ncu).
// A batch whose literal runs are all short (level 19: ~5.5 literals a
// sequence) has each rank copy its own sequences' runs
// (place_batch_literals_by_sequence); otherwise ranks share every run's
// words (place_batch_literals), which long runs need. Copied by sequence,
// a batch's literals come from a window of G::kSize aligned words (one a
// rank, 256 bytes in a warp), loaded as soon as the batch before has its
// prefix sums (place_batch_literals_from_window), where they fit in it
// (level 19: ~180 literals a batch of 32 sequences).
inline constexpr uint32_t kShortLiteralRun = 32;

// A block's literals as literal copy and match copy by chunk place them, batch after batch:
// rank r's word of the window at literal `pos` is the aligned word r past
// the one holding it (none for RLE or in-place literals).
struct LiteralWindows {
  bool on;
  AlignedWords words;
  ZARRGPU_HD_INLINE explicit LiteralWindows(const Literals& lit)
      : on(!lit.rle && !lit.in_output),
        words{lit.data, static_cast<int64_t>(lit.size),
              on ? static_cast<int64_t>(reinterpret_cast<uintptr_t>(lit.data) & 7u) : 0} {}
  ZARRGPU_HD_INLINE uint64_t load(size_t pos, uint32_t rank) const {
    const int64_t j = ((static_cast<int64_t>(pos) + words.off) >> 3) + rank;
    return on && 8 * j - words.off < words.size ? words.word(j) : 0;
  }
  // Where literal `pos` lies in its word.
  ZARRGPU_HD_INLINE uint32_t first(size_t pos) const {
    return static_cast<uint32_t>((static_cast<int64_t>(pos) + words.off) & 7);
  }
};

// Pass 1 of a batch of n sequences whose literals start at lit_pos (b's
// literals_end and matches_end set): from `window` (w.load(lit_pos), a
// batch ahead) where its runs are short and fit it, else by sequence where
// they are short, else by the ranks together, kWords words a rank a pass.
template <uint32_t kWords = kLiteralWords, class G, class Batch>
ZARRGPU_HD_INLINE void place_batch_literals_as_fits(G g, const Batch& b, uint32_t n, uint8_t* dst, const Literals& lit,
                                                    size_t lit_pos, const LiteralWindows& w, uint64_t window,
                                                    bool by_sequence, uint32_t batch_literals) {
  const uint32_t first = w.first(lit_pos);
  if (by_sequence && w.on && first + batch_literals <= 8 * G::kSize) {
    place_batch_literals_from_window(g, b, n, dst, window, first);
  } else if (by_sequence) {
    place_batch_literals_by_sequence(g, b, n, dst, lit, lit_pos);
  } else {
    place_batch_literals<kWords>(g, b, n, dst, lit, lit_pos);
  }
}

template <class G>
ZARRGPU_HD void place_block_literals(G g, SequenceBatch& sb, const Literals& lit, uint8_t* block_out,
                                     uint32_t block_start, SequenceTriple* t, uint32_t from, uint32_t to,
                                     size_t* op, size_t* lit_pos) {
  static_assert(G::kSize <= kSequenceBatch, "a batch's first round has a sequence for every rank");
  // This rank's sequence of the next batch's first round (0, 0 past `to`).
  uint32_t next_ll = 0, next_ml = 0;
  auto prefetch = [&](uint32_t batch) {
    const uint32_t i = batch + g.rank();
    next_ll = i < to ? t[i].literals_length : 0u;
    next_ml = i < to ? t[i].match_length : 0u;
  };
  prefetch(from);
  const LiteralWindows w(lit);
  uint64_t window = w.load(*lit_pos, g.rank());
  for (uint32_t done = from; done < to;) {
    const uint32_t left = to - done;
    const uint32_t n = left < kSequenceBatch ? left : kSequenceBatch;
    g.sync();  // every rank is done with the previous batch
    // A rank per sequence, G::kSize sequences a round: prefix sums of the
    // lengths across the group, carried from round to round.
    uint32_t literals_before = 0, matches_before = 0;
    bool long_run = false;
    for (uint32_t first = 0; first < n; first += G::kSize) {
      const uint32_t i = first + g.rank();
      const uint32_t ll = first == 0 ? next_ll : i < n ? t[done + i].literals_length : 0u;
      const uint32_t ml = first == 0 ? next_ml : i < n ? t[done + i].match_length : 0u;
      long_run = long_run || ll > kShortLiteralRun;
      const uint32_t literals = literals_before + g.inclusive_sum(ll);
      const uint32_t matches = matches_before + g.inclusive_sum(ml);
      if (i < n) {
        t[done + i].match_start = block_start + static_cast<uint32_t>(*op) + literals + matches - ml;
        sb.literals_end[i] = literals;
        sb.matches_end[i] = matches;
      }
      if (first + G::kSize < n) {
        literals_before = static_cast<uint32_t>(g.shuffle64(literals, G::kSize - 1));
        matches_before = static_cast<uint32_t>(g.shuffle64(matches, G::kSize - 1));
      }
    }
    prefetch(done + n);
    const bool by_sequence = !lit.in_output && !g.any(long_run);
    g.sync();
    const uint32_t batch_literals = sb.literals_end[n - 1];
    // The next batch's window, in flight while this batch is placed.
    const uint64_t next_window = done + n < to ? w.load(*lit_pos + batch_literals, g.rank()) : 0;
    place_batch_literals_as_fits(g, sb, n, block_out + *op, lit, *lit_pos, w, window, by_sequence, batch_literals);
    *op += batch_literals + sb.matches_end[n - 1];
    *lit_pos += batch_literals;
    window = next_window;
    done += n;
  }
}

// Literal copy for block b of its chunk (validated by resolution), by one group.
template <class G>
ZARRGPU_HD void write_block_literals(G g, SequenceBatch& sb, const uint8_t* chunk, const BlockRecord& b,
                                     const uint8_t* literals_scratch, SequenceTriple* triples, GranuleEntry* granules,
                                     uint8_t* out) {
  uint8_t* const block_out = out + b.output_offset;
  if (b.type != BlockType::compressed) {
    if (b.type == BlockType::raw) group_copy_bytes(g, block_out, chunk + b.src_offset, b.size);
    else group_fill(g, block_out, chunk[b.src_offset], b.size);
    index_block_granules(g, granules, b.output_offset, b.output_offset + b.size, nullptr, b.triples_offset, 0);
    return;
  }
  const Literals lit = block_literals(chunk, b, literals_scratch);
  // Match starts count from the chunk's start; chunk_limits() keeps them 32-bit.
  const uint32_t block_start = static_cast<uint32_t>(b.output_offset);
  size_t op = 0, lit_pos = 0;  // in the block's output and its literals
  SequenceTriple* t = triples + b.triples_offset;
  place_block_literals(g, sb, lit, block_out, block_start, t, 0, b.sequence_count, &op, &lit_pos);
  copy_literals(g, block_out + op, lit, lit_pos, lit.size - lit_pos);
  if (b.sequence_count > 0) g.sync();  // every rank's match starts are in place
  const uint64_t size = op + (lit.size - lit_pos);
  index_block_granules(g, granules, b.output_offset, b.output_offset + size, t, b.triples_offset, b.sequence_count);
}

// Literal copy for compressed block b (validated by resolution) by `parts` groups at
// once, this group being part `part`: the block's sequences in `parts` runs
// of whole batches, each started from the lengths of the runs before it
// (exchanged through sums[parts], shared by the groups), then the block's
// last literals (the last part) and its granules (each part its run's).
// sync_parts() is a barrier of every rank of every part (on the GPU, the
// thread block's). One group runs a block's batches one after the other,
// each waiting on its loads: at level 19 (~15,000 sequences a 128 KiB
// block) literal copy lasted as long as its longest block's chain of batches.
// How a long block is cut for literal copy's parts and match copy's runs: `parts` runs of
// whole batches of its `count` sequences (the last shorter, the last ones
// empty when the block is short); this is the length of each.
ZARRGPU_HD_INLINE uint32_t part_sequences(uint32_t count, uint32_t parts) {
  const uint32_t batches = (count + kSequenceBatch - 1) / kSequenceBatch;
  return (batches + parts - 1) / parts * kSequenceBatch;
}

template <class G, class SyncParts>
ZARRGPU_HD void write_block_literals_part(G g, SequenceBatch& sb, SequenceLengths* sums, uint32_t part,
                                          uint32_t parts, SyncParts&& sync_parts, const uint8_t* chunk,
                                          const BlockRecord& b, const uint8_t* literals_scratch,
                                          SequenceTriple* triples, GranuleEntry* granules, uint8_t* out) {
  const uint32_t count = b.sequence_count;
  const uint32_t per = part_sequences(count, parts);
  const uint32_t from = part * per < count ? part * per : count;
  const uint32_t to = count - from < per ? count : from + per;
  SequenceTriple* t = triples + b.triples_offset;
  const SequenceLengths mine = sum_sequence_lengths(g, t, from, to);
  if (g.rank() == 0) sums[part] = mine;
  sync_parts();
  size_t op = 0, lit_pos = 0;         // where this run starts
  uint64_t output = 0, literals = 0;  // of all runs
  for (uint32_t q = 0; q < parts; ++q) {
    if (q == part) {
      op = output;
      lit_pos = literals;
    }
    output += sums[q].output;
    literals += sums[q].literals;
  }
  const Literals lit = block_literals(chunk, b, literals_scratch);
  uint8_t* const block_out = out + b.output_offset;
  place_block_literals(g, sb, lit, block_out, static_cast<uint32_t>(b.output_offset), t, from, to, &op, &lit_pos);
  const bool last = part + 1 == parts;
  if (last) copy_literals(g, block_out + op, lit, lit_pos, lit.size - lit_pos);
  sync_parts();  // every part's match starts are in place
  const uint64_t size = output + (lit.size - literals);
  index_block_granules(g, granules, b.output_offset, b.output_offset + size, t, b.triples_offset, count, from, to,
                       last);
}

// Match copy's view of the blocks before block k of a chunk, all through literal copy:
// maps output bytes before block k to positions that hold the same bytes
// and are final already — literals, or bytes of raw or RLE blocks: every
// byte that no match of those blocks wrote. Each step goes to the source of
// the match that wrote the byte, which lies strictly before it, so the walk
// ends (at the frame's start at the latest: resolution checked every offset
// against it).
//
// With match copy in stages (MatchStages below), the bytes before the stage's first
// position are final too: a walk stops there, at its floor.
struct EarlierBlocks {
  const SequenceTriple* triples;  // the chunk's, in literal copy's form: match starts
  const GranuleEntry* granules;   // Literal copy's index
  uint32_t count;                 // sequences of the blocks before block k
  uint32_t floor;                 // every byte before it is final (0: none but literal copy's)

  ZARRGPU_HD_INLINE EarlierBlocks(const BlockRecord* blocks, uint32_t k, const SequenceTriple* chunk_triples,
                                   const GranuleEntry* index, uint32_t final_below = 0)
      : triples(chunk_triples), granules(index), count(blocks[k].triples_offset), floor(final_below) {}

  // A walk over the bytes [p, p + want) (want >= 1), p before block k, one
  // match at a time: where the first of them are final, and how many of
  // them lie contiguously there — bounded by every match and match period
  // the walk passes through, so that a run of consecutive bytes costs one
  // walk, not one per byte. Positions count from the chunk's start.
  struct Walk {
    uint32_t p;       // the run's first byte, then its source, ...
    uint32_t len;     // bytes of the run that follow contiguously
    uint32_t resume;  // the position, at the level of the walk that cut len last, of the run's first byte
    uint32_t above;   // len before that cut: what the levels before it allow
  };

  ZARRGPU_HD_INLINE Walk start(uint64_t p, uint32_t want) const {
    const auto q = static_cast<uint32_t>(p);
    return Walk{q, want, q, want};
  }

  // One step: true when w.p is final (w.len bytes of it), else w follows
  // the match that wrote w.p to its source.
  ZARRGPU_HD_INLINE bool step(Walk& w) const {
    const uint32_t p = w.p;
    auto cap = [&w, p](uint32_t n) {
      if (n < w.len) {
        w.above = w.len;
        w.resume = p;
        w.len = n;
      }
    };
    if (p < floor) {  // final: an earlier stage's
      cap(floor - p);
      return true;
    }
    // The first sequence whose match ends after p: the granule's first,
    // past the matches that end in the granule before p. Granule p / 32
    // starts before block k, so that is at most `count`.
    const GranuleEntry e = granules[p >> kGranuleShift];
    const uint32_t i = e.first + popcount32(e.ends & ((1u << (p & kGranuleMask)) - 1u));
    if (i >= count) return true;  // no match of the earlier blocks reaches p: final up to block k
    const SequenceTriple s = triples[i];
    if (s.match_start > p) {  // a literal, or a byte of a raw or RLE block, up to that match
      cap(s.match_start - p);
      return true;
    }
    // A match byte: the run stays in this match and in one period of it.
    const uint32_t d = p - s.match_start;
    const uint32_t r = d >= s.offset ? d % s.offset : d;
    cap(s.match_length - d);
    cap(s.offset - r);
    w.p = s.match_start - s.offset + r;
    return false;
  }

  // After a walk found its run (w.len bytes at w.p): the walk over the
  // bytes after the run, when a level below the first cut it. Every level
  // before that one maps the next bytes on as it mapped the run's (each
  // allows w.above bytes), so the walk starts at the cutting level, where
  // the run's first byte was at w.resume, not at the first level again.
  // False when the first level cut it: the caller starts over there.
  ZARRGPU_HD_INLINE static bool resume(Walk& w) {
    if (w.above <= w.len) return false;
    const uint32_t p = w.resume + w.len, want = w.above - w.len;
    w = Walk{p, want, p, want};
    return true;
  }

  ZARRGPU_HD_INLINE uint64_t final_position(uint64_t p) const {
    Walk w = start(p, 1);
    while (!step(w)) {
    }
    return w.p;
  }
};

// execute_batch_matches()'s view in match copy. A match whose first period reads
// before the block (start in block < offset) had its first bytes — those
// whose source lies before the block — written by cross-block match copy
// (copy_cross_block_bytes); every later byte of the match that repeats one
// of them reads it there. A byte before the batch but in the block is final (an earlier
// batch wrote it); one before the block is mapped by EarlierBlocks (not
// reached once those bytes are written, kept for safety).
struct BeforeBatch {
  const EarlierBlocks& earlier;
  uint64_t base;         // the batch's first output byte
  uint64_t block_start;
  const uint32_t* skip;  // per sequence of the batch: the leading match bytes cross-block match copy wrote

  ZARRGPU_HD_INLINE uint32_t skipped(uint32_t i) const { return skip[i]; }

  ZARRGPU_HD_INLINE int64_t operator()(int64_t q) const {
    const uint64_t p = static_cast<uint64_t>(static_cast<int64_t>(base) + q);
    if (p >= block_start) return q;
    return static_cast<int64_t>(earlier.final_position(p)) - static_cast<int64_t>(base);
  }

  ZARRGPU_HD_INLINE bool written(uint32_t start, uint32_t offset, uint32_t tt, int64_t* at) const {
    const int64_t in_block = static_cast<int64_t>(base - block_start) + start;  // the match's start in the block
    if (in_block >= offset) return false;  // it reads only bytes of the block
    const uint32_t r = tt >= offset ? tt % offset : tt;
    if (static_cast<int64_t>(r) >= offset - in_block) return false;
    *at = static_cast<int64_t>(start) + r;
    return true;
  }
};

// Match copy may cut a block's sequences into runs of `run` sequences (the last
// one shorter) and treat each run as a block of its own: cross-block match copy writes the
// match bytes whose source lies before their run (in earlier blocks or in
// earlier runs of the block), walking back through the chunk's sequences
// before the run, and in-block match copy runs each run's batches apart from the others.
// One warp ran a level-19 block's ~500 batches one after the other, and the
// longest block set the kernel's time (64 KiB chunks: 7,800 sequences on
// average, 15,700 at most). kWholeBlock: one run.
inline constexpr uint32_t kWholeBlock = ~0u;

// Where the run of sequence i of a block (its first sequence `first`)
// starts in the output: where the match of the sequence before it ended.
ZARRGPU_HD_INLINE uint32_t run_first(uint32_t i, uint32_t run) { return run == kWholeBlock ? 0u : i / run * run; }
ZARRGPU_HD_INLINE uint32_t run_start(const SequenceTriple* t, uint32_t block_start, uint32_t first) {
  return first == 0 ? block_start : t[first - 1].match_start + t[first - 1].match_length;
}

// Match copy in stages: the blocks of a chunk whose output starts in [s * bytes,
// (s + 1) * bytes) form stage s (the last stage also takes any block past
// it), and match copy (cross-block match copy, then in-block match copy) of stage s runs after
// match copy of every stage
// before it. The bytes before s * bytes are then final, and cross-block match copy's walks
// stop there (EarlierBlocks::floor) instead of following matches back
// through every earlier block to a literal. Level 19 on ERA5-like floats
// (bench_data.hpp; libzstd's splitter writes ~50 KiB blocks there), steps
// a walk in 1 / 2 / 4 / 8 stages: 1 MiB chunks 15.0 / 10.2 / 7.4 / 4.5, 4
// MiB 29.6 / 12.4 / 11.7 / 7.4 (host count). But each stage's in-block match copy lasts as
// long as its longest block: the GPU's rule (gpu/policy.cuh) weighs the
// two. One stage: match copy of every block at once.
struct MatchStages {
  uint32_t count;  // >= 1
  uint64_t bytes;  // output positions per stage, >= 1

  ZARRGPU_HD_INLINE MatchStages(uint32_t stages, uint64_t chunk_bytes) : count(stages == 0 ? 1u : stages) {
    bytes = (chunk_bytes + count - 1) / count;
    if (bytes == 0) bytes = 1;
  }
  ZARRGPU_HD_INLINE uint32_t of(const BlockRecord& b) const {
    const uint64_t s = b.output_offset / bytes;
    return s < count ? static_cast<uint32_t>(s) : count - 1;
  }
  // Where stage s's walks stop (positions of a chunk fit 32 bits).
  ZARRGPU_HD_INLINE uint32_t floor(uint32_t s) const { return static_cast<uint32_t>(s * bytes); }
};

// Sequence tickets for copy_cross_block_bytes(): every rank of the group
// calls the ticket source once per turn, together, with `need` set when it
// wants its next sequence, and gets an index (one not handed out before;
// past the block's count once none is left). StridedSequences hands rank r
// first + r, then every stride-th: a fixed share. On the GPU the warps of a
// thread block draw from one counter instead (gpu/agent_block_parallel.cuh),
// so that no rank idles while another still has a long list.
struct StridedSequences {
  uint32_t next;
  uint32_t stride;
  ZARRGPU_HD_INLINE uint32_t operator()(bool need) {
    if (!need) return 0;
    const uint32_t i = next;
    next += stride;
    return i;
  }
};

// Cross-block match copy for compressed block k of `blocks` (validated by resolution; literal copy done for
// every block of the chunk, its match starts and granule index included):
// the match bytes whose source lies in an earlier block (with runs of
// `run` sequences: before the sequence's run; in a stage, every byte before
// `floor` final), for the sequences `tickets`
// hands this rank (any number of groups may share a block's sequences: how
// many such bytes a block has, and how far back they lead, varies a lot
// from block to block).
template <class G, class Tickets>
ZARRGPU_HD void copy_cross_block_bytes(G g, const BlockRecord* blocks, uint32_t k, const SequenceTriple* triples,
                                       const GranuleEntry* granules, uint8_t* out, Tickets&& tickets,
                                       uint32_t run = kWholeBlock, uint32_t floor = 0) {
  const BlockRecord& b = blocks[k];
  if (b.type != BlockType::compressed) return;
  const SequenceTriple* t = triples + b.triples_offset;
  EarlierBlocks earlier{blocks, k, triples, granules, floor};  // its count: the sequences before the rank's run
  const uint32_t block_start = static_cast<uint32_t>(b.output_offset);
  // Run by run, each rank on its own sequences without waiting for the
  // others (the walks back through earlier blocks vary a lot in length: a
  // rank that waited at every batch for the longest would make the block as
  // slow as its slowest byte). The loop is flat, and every turn ends in a
  // step for every rank with work: a rank with no walk under way first takes
  // its next sequence (if the last one is done) and starts a walk over the
  // rest of its cross-block bytes, in the same turn. So the ranks run the
  // step, the costly part, together (on a GPU, code that only some lanes
  // of a warp take is issued once per path: a turn that only took a
  // sequence or only started a walk would idle the other lanes). A run a
  // walk found is copied at the end of the turn: a short one by its rank, a
  // long one by the whole group (not by one rank byte by byte while the
  // others wait). Sources are final bytes of earlier blocks, destinations
  // in this block: apart, no order needed.
  constexpr uint32_t kOwnRun = 8;  // a run this short: its rank copies it
  uint32_t u = 0, n = 0;        // cross-block bytes of the current sequence: done, all
  uint64_t src = 0, dst = 0;    // where they read and go
  bool walking = false, more = true;
  EarlierBlocks::Walk w{};
  while (g.any(more)) {
    const bool take = more && !walking && u >= n;  // the last sequence is done
    const uint32_t i = tickets(take);
    if (take) {
      if (i < b.sequence_count) {
        const SequenceTriple s = t[i];
        const uint32_t first = run_first(i, run);
        earlier.count = b.triples_offset + first;
        const uint32_t in_run = s.match_start - run_start(t, block_start, first);
        u = 0;
        n = s.offset <= in_run ? 0u  // reads only bytes of the run
            : s.match_length < s.offset - in_run ? s.match_length : s.offset - in_run;
        dst = s.match_start;
        src = dst - s.offset;
      } else {
        more = false;
      }
    }
    if (more && !walking && u < n) {
      w = earlier.start(src + u, n - u);
      walking = true;
    }
    uint64_t run_dst = 0, run_src = 0;
    uint32_t run_len = 0;
    if (walking && earlier.step(w)) {
      run_dst = dst + u;
      run_src = w.p;
      run_len = w.len;
      u += run_len;
      // The next run's walk, from where this one was cut when it can.
      walking = u < n && EarlierBlocks::resume(w);
    }
    if (run_len <= kOwnRun || G::kSize == 1) {
      for (uint32_t x = 0; x < run_len; ++x) out[run_dst + x] = out[run_src + x];
      run_len = 0;
    }
    for (uint32_t ranks = g.ballot(run_len != 0); ranks != 0; ranks &= ranks - 1) {
      const uint32_t r = lowbit32(ranks);
      const uint64_t d = g.shuffle64(run_dst, r), from = g.shuffle64(run_src, r);
      group_copy_disjoint(g, out + d, out + from, g.shuffle64(run_len, r));
    }
  }
}

// The same with the block's sequences shared out among the group's ranks in
// fixed strides.
template <class G>
ZARRGPU_HD void copy_cross_block_bytes(G g, const BlockRecord* blocks, uint32_t k, const SequenceTriple* triples,
                                       const GranuleEntry* granules, uint8_t* out) {
  copy_cross_block_bytes(g, blocks, k, triples, granules, out, StridedSequences{g.rank(), G::kSize});
}

// In-block match copy's batch: the match bytes cross-block match copy wrote are the first min(Match_Length,
// Offset - start in block) bytes of each match that reads before the block
// (copy_cross_block_bytes), so a batch leaves them out: matches_end counts
// only the others, and skip[i] says how many of sequence i's lead were left.
// On the read path's float fields ~40% of the match bytes are such.
struct InBlockBatch {
  SequenceBatch batch;
  uint32_t skip[kSequenceBatch];
};

// In-block match copy for compressed block k, after cross-block match copy of the block: the other
// match bytes,
// batch after batch; their sources are in the block, final once the
// batches before them ran (or cross-block match copy wrote them). With runs (cross-block match
// copy in the same
// runs), only the sequences [first, end) of the block, as a block of their own.
//
// A short match whose sources all lie before its batch (final: earlier
// batches wrote them) and that does not repeat itself (offset >= length)
// is copied by its own rank as the batch is laid out, all its loads before
// its stores, and the batch's pass leaves it out: a pass finds each byte's
// sequence and segment by searches in shared memory, two fifths of
// in-block match copy's stall samples at level 19 (3-4 byte matches; ncu). A byte of a later match of the batch that reads it is
// followed through it to its source by the pass, as before.
inline constexpr uint32_t kOwnMatchBytes = 8;
template <class G>
ZARRGPU_HD void execute_in_block_matches(G g, InBlockBatch& ib, const BlockRecord* blocks, uint32_t k,
                                         const SequenceTriple* triples, const GranuleEntry* granules, uint8_t* out,
                                         uint32_t first = 0, uint32_t end = kWholeBlock, uint32_t floor = 0) {
  const BlockRecord& b = blocks[k];
  if (b.type != BlockType::compressed) return;
  if (end > b.sequence_count) end = b.sequence_count;
  if (first >= end) return;  // a run past the block's sequences (its start would read past them)
  SequenceBatch& sb = ib.batch;
  const SequenceTriple* t = triples + b.triples_offset;
  EarlierBlocks earlier{blocks, k, triples, granules, floor};
  earlier.count += first;
  const uint32_t block_start = run_start(t, static_cast<uint32_t>(b.output_offset), first);  // the run's
  for (uint32_t done = first; done < end;) {
    const uint32_t left = end - done;
    const uint32_t n = left < kSequenceBatch ? left : kSequenceBatch;
    // The batch starts with the first sequence's literals, where the match
    // before it ends: positions in the batch come from the match starts.
    const uint32_t base = run_start(t, block_start, done);
    g.sync();  // every rank is done with the previous batch
    // A rank per sequence: its segments, what cross-block match copy left of its match, and a
    // prefix sum of those across the group, carried from round to round.
    uint32_t matches_before = 0;
    for (uint32_t first = 0; first < n; first += G::kSize) {
      const uint32_t i = first + g.rank();
      uint32_t left_bytes = 0;
      if (i < n) {
        const SequenceTriple s = t[done + i];
        const uint32_t before = run_start(t, block_start, done + i);
        const uint32_t in_block = s.match_start - block_start;
        const uint32_t lead = in_block >= s.offset ? 0u
                              : s.match_length < s.offset - in_block ? s.match_length : s.offset - in_block;
        left_bytes = s.match_length - lead;
        if (left_bytes <= kOwnMatchBytes && s.offset >= s.match_length &&
            s.match_start - s.offset + s.match_length <= base) {
          const uint32_t from = s.match_start - s.offset + lead, to = s.match_start + lead;
          uint8_t v[kOwnMatchBytes];
#if defined(__CUDACC__)
#pragma unroll
#endif
          for (uint32_t u = 0; u < kOwnMatchBytes; ++u) v[u] = u < left_bytes ? out[from + u] : 0;
#if defined(__CUDACC__)
#pragma unroll
#endif
          for (uint32_t u = 0; u < kOwnMatchBytes; ++u) {
            if (u < left_bytes) out[to + u] = v[u];
          }
          left_bytes = 0;
        }
        sb.offset[i] = s.offset;
        sb.segment_start[2 * i] = before - base;
        sb.segment_start[2 * i + 1] = s.match_start - base;
        ib.skip[i] = lead;
      }
      const uint32_t matches = matches_before + g.inclusive_sum(left_bytes);
      if (i < n) sb.matches_end[i] = matches;
      if (first + G::kSize < n) matches_before = static_cast<uint32_t>(g.shuffle64(matches, G::kSize - 1));
    }
    g.sync();
    execute_batch_matches(g, sb, n, out + base, BeforeBatch{earlier, base, block_start, ib.skip});
    done += n;
  }
}

// Match copy by chunk: one group runs every match of a chunk's first `valid`
// blocks (those chunk verdict validated), in order, as if the blocks were one. No cross-block match copy,
// no walk, no granule index: the chunk is one chain of batches. At every
// level up to 1 MiB: cross-block match copy's walks through earlier blocks and each block's
// own batches in a row cost more than that chain; at 4 MiB (~27,000
// batches a chunk at level 19) the chain costs more. Two forms:
//  - execute_chunk_matches(), after literal copy of the chunk's blocks: their triples
//    lie back to back (a valid block holds all it counted), and what lies
//    between two blocks' matches (literals, raw and RLE blocks) is in place
//    since literal copy, so each batch reads only final bytes: literals, bytes before
//    the batch, and its own matches (pass 2 follows those back).
//  - write_chunk_output(), literal copy in the same pass, from the triples as resolution
//    leaves them (Literals_Length, resolved offsets): each block in order,
//    raw and RLE ones whole, each batch's prefix sums of the lengths place
//    its sequences, its literals go to their place, then its matches run,
//    and the block's last literals follow its last match: as the one-warp
//    decoder writes a chunk, and no literal copy launch. Where blocks are long (level
//    19), against literal copy then execute_chunk_matches(), 2 GiB rows, 2 rounds
//    (ab_many.sh): level 19 +7.3 / +8.7 /
//    +10.3% at 64 KiB / 256 KiB / 1 MiB; at levels 1 and 3 (long literal
//    runs, copied in the chain instead of by literal copy's warps) -4.3..-7.0% at
//    256 KiB and 1 MiB (level 3 +1.7 / +5.9% at 64 / 256 KiB).
//
// A batch holds N sequences, N / G::kSize per rank (the GPU's: 32, one a
// lane, in chunks of up to 256 KiB, else 64; longer batches lost,
// gpu/policy.cuh), the next batch's triples load while this one runs (in
// write_chunk_output, so does its window of literals where they are short,
// as in place_block_literals), and every short match's loads go before its
// stores.
//
// Pass 2 sees only the sequences with bytes left to it (listed: long matches,
// matches that repeat themselves or read the batch; at level 19 ~15% of a
// batch's), and finds a byte's among them by binary search.
template <uint32_t N>
struct ChunkBatch {
  uint32_t offset[N];
  uint32_t segment_start[2 * N];  // as SequenceBatch's
  uint32_t literals_end[N];       // as SequenceBatch's, for pass 1
  uint32_t matches_end[N];
  uint32_t list_end[N];           // match bytes pass 2 runs, of listed sequences 0..s
  uint32_t list_seq[N];           // the batch's sequence of listed slot s
};

// The matches of a batch of match copy by chunk, in either form, once every byte
// before the batch is written (and, in write_chunk_output, the batch's
// literals): the short matches whose sources lie before the batch (final)
// and that do not repeat themselves, copied by their rank with every load
// first; the batch's segments and the list of sequences left to pass 2;
// then pass 2. Rank r holds the batch's sequences r, r + G::kSize, ...
// (t[j]: its offset, resolved, and match length) and where each one's
// literals and match start, relative to `base`, the batch's first byte.
template <class G, uint32_t N, uint32_t kRounds>
ZARRGPU_HD_INLINE void run_chunk_batch_matches(G g, ChunkBatch<N>& cb, uint32_t n, uint32_t base, uint8_t* out,
                                               const SequenceTriple (&t)[kRounds], const uint32_t (&lit_at)[kRounds],
                                               const uint32_t (&match_at)[kRounds]) {
  uint64_t v[kRounds];
  uint32_t left[kRounds];
  for (uint32_t j = 0; j < kRounds; ++j) {
    const uint32_t i = j * G::kSize + g.rank();
    const SequenceTriple& s = t[j];
    const uint32_t at = base + match_at[j];
    left[j] = i < n ? s.match_length : 0u;
    v[j] = 0;
    if (i < n && s.match_length <= kOwnMatchBytes && s.offset >= s.match_length &&
        at - s.offset + s.match_length <= base) {
      for (uint32_t u = 0; u < kOwnMatchBytes; ++u) {
        if (u < s.match_length) v[j] |= uint64_t{out[at - s.offset + u]} << (8 * u);
      }
      left[j] = 0;
    }
  }
  uint32_t bytes_before = 0, listed = 0;
  const uint32_t below = (1u << g.rank()) - 1u;  // ranks before this one (kSize <= 32)
  for (uint32_t j = 0; j < kRounds; ++j) {
    const uint32_t i = j * G::kSize + g.rank();
    const SequenceTriple& s = t[j];
    if (i < n && left[j] == 0) store_le_bytes(out + base + match_at[j], v[j], s.match_length);
    if (i < n) {
      cb.offset[i] = s.offset;
      cb.segment_start[2 * i] = lit_at[j];
      cb.segment_start[2 * i + 1] = match_at[j];
    }
    const uint32_t bytes = bytes_before + g.inclusive_sum(left[j]);
    const uint32_t lists = g.ballot(left[j] != 0);
    if (left[j] != 0) {
      const uint32_t slot = listed + popcount32(lists & below);
      cb.list_end[slot] = bytes;
      cb.list_seq[slot] = i;
    }
    listed += popcount32(lists);
    bytes_before = static_cast<uint32_t>(g.shuffle64(bytes, G::kSize - 1));
  }
  g.sync();  // the batch's bytes before pass 2 (short matches, literals) and its lists are in place
  execute_batch_matches(g, cb, listed, out + base);
}

template <class G, uint32_t N>
ZARRGPU_HD void execute_chunk_matches(G g, ChunkBatch<N>& cb, const BlockRecord* blocks, uint32_t valid,
                                      const SequenceTriple* t, uint8_t* out) {
  static_assert(N % G::kSize == 0, "whole rounds of the group's ranks");
  static_assert(G::kSize <= 32, "a ballot's bit a rank");
  constexpr uint32_t kRounds = N / G::kSize;
  if (valid == 0) return;
  const BlockRecord& last = blocks[valid - 1];
  const uint32_t end = last.triples_offset + (last.type == BlockType::compressed ? last.sequence_count : 0u);
  if (end == 0) return;
  // Nothing lies before the chunk's first literal: every offset stays
  // within its frame (resolution).
  const auto first_start = static_cast<uint32_t>(blocks[0].output_offset);
  struct Held {
    SequenceTriple s;
    uint32_t before;  // where its literals start: the end of the match before it
  };
  auto load = [&](uint32_t done, Held* h) {
    for (uint32_t j = 0; j < kRounds; ++j) {
      const uint32_t i = done + j * G::kSize + g.rank();
      h[j] = Held{};  // past the end: zeros, never used (every use is below n)
      if (i >= end) continue;
      h[j].s = t[i];
      h[j].before = i == 0 ? first_start : t[i - 1].match_start + t[i - 1].match_length;
    }
  };
  Held next[kRounds];
  load(0, next);
  for (uint32_t done = 0; done < end; done += N) {
    Held cur[kRounds];
    for (uint32_t j = 0; j < kRounds; ++j) cur[j] = next[j];
    load(done + N, next);
    const uint32_t n = end - done < N ? end - done : N;
    const uint32_t base = g.broadcast(cur[0].before);  // rank 0 holds sequence `done`
    g.sync();  // the previous batch's bytes are written: the short matches may read them
    SequenceTriple t_now[kRounds];
    uint32_t lit_at[kRounds], match_at[kRounds];
    for (uint32_t j = 0; j < kRounds; ++j) {
      t_now[j] = cur[j].s;
      lit_at[j] = cur[j].before - base;
      match_at[j] = cur[j].s.match_start - base;
    }
    run_chunk_batch_matches(g, cb, n, base, out, t_now, lit_at, match_at);
  }
}

// write_chunk_output(): literal copy and match copy by chunk in one pass (above).
template <class G, uint32_t N>
ZARRGPU_HD void write_chunk_output(G g, ChunkBatch<N>& cb, const uint8_t* chunk, const BlockRecord* blocks,
                                   uint32_t valid, const uint8_t* literals_scratch, const SequenceTriple* triples,
                                   uint8_t* out) {
  static_assert(N % G::kSize == 0, "whole rounds of the group's ranks");
  static_assert(G::kSize <= 32, "a ballot's bit a rank");
  constexpr uint32_t kRounds = N / G::kSize;
  for (uint32_t k = 0; k < valid; ++k) {
    const BlockRecord& b = blocks[k];
    uint8_t* const block_out = out + b.output_offset;
    if (b.type != BlockType::compressed) {
      if (b.type == BlockType::raw) group_copy_bytes(g, block_out, chunk + b.src_offset, b.size);
      else group_fill(g, block_out, chunk[b.src_offset], b.size);
      continue;
    }
    const Literals lit = block_literals(chunk, b, literals_scratch);
    const uint32_t count = b.sequence_count;
    const SequenceTriple* const t = triples + b.triples_offset;
    // Match starts count from the chunk's start; chunk_limits() keeps them 32-bit.
    const auto block_start = static_cast<uint32_t>(b.output_offset);
    uint32_t op = 0, lit_pos = 0;  // where the batch starts in the block's output and literals
    const LiteralWindows w(lit);
    auto load = [&](uint32_t done, SequenceTriple* h) {
      for (uint32_t j = 0; j < kRounds; ++j) {
        const uint32_t i = done + j * G::kSize + g.rank();
        h[j] = i < count ? t[i] : SequenceTriple{};
      }
    };
    SequenceTriple next[kRounds];
    load(0, next);
    uint64_t window = w.load(0, g.rank());
    for (uint32_t done = 0; done < count; done += N) {
      SequenceTriple cur[kRounds];
      for (uint32_t j = 0; j < kRounds; ++j) cur[j] = next[j];
      load(done + N, next);
      const uint32_t n = count - done < N ? count - done : N;
      const uint32_t base = block_start + op;  // the batch's first output byte
      g.sync();  // the bytes before the batch are written, and pass 2 of the batch before is done with cb
      // A rank per sequence: prefix sums of the lengths across the group,
      // carried from round to round (ranks past n hold zeros).
      uint32_t literals_before = 0, matches_before = 0;
      uint32_t match_start[kRounds];  // relative to base
      bool long_run = false;
      for (uint32_t j = 0; j < kRounds; ++j) {
        const uint32_t i = j * G::kSize + g.rank();
        const uint32_t ll = cur[j].literals_length, ml = cur[j].match_length;
        long_run = long_run || ll > kShortLiteralRun;
        const uint32_t literals = literals_before + g.inclusive_sum(ll);
        const uint32_t matches = matches_before + g.inclusive_sum(ml);
        match_start[j] = literals + matches - ml;
        if (i < n) {
          cb.literals_end[i] = literals;
          cb.matches_end[i] = matches;
        }
        literals_before = static_cast<uint32_t>(g.shuffle64(literals, G::kSize - 1));
        matches_before = static_cast<uint32_t>(g.shuffle64(matches, G::kSize - 1));
      }
      const uint32_t batch_literals = literals_before, batch_matches = matches_before;
      const bool by_sequence = !lit.in_output && !g.any(long_run);
      // The next batch's window, in flight while this batch runs.
      const uint64_t next_window = done + n < count ? w.load(lit_pos + batch_literals, g.rank()) : 0;
      g.sync();  // every rank's prefix sums are in cb
      // Pass 1: the batch's literals (long runs a word a rank a pass: fewer
      // registers); then its matches.
      place_batch_literals_as_fits<1>(g, cb, n, out + base, lit, lit_pos, w, window, by_sequence, batch_literals);
      window = next_window;
      uint32_t lit_at[kRounds];
      for (uint32_t j = 0; j < kRounds; ++j) lit_at[j] = match_start[j] - cur[j].literals_length;
      run_chunk_batch_matches(g, cb, n, base, out, cur, lit_at, match_start);
      op += batch_literals + batch_matches;
      lit_pos += batch_literals;
    }
    // The block's literals after its last match (no batch reads them before
    // the next batch's barrier).
    copy_literals(g, block_out + op, lit, lit_pos, lit.size - lit_pos);
  }
  g.sync();  // the chunk is written (the checksums read it)
}

// Match copy for compressed block k by one group: cross-block match copy (its sequences from
// `tickets`, as copy_cross_block_bytes) then in-block match copy.
template <class G, class Tickets>
ZARRGPU_HD void execute_block_matches(G g, InBlockBatch& ib, const BlockRecord* blocks, uint32_t k,
                                      const SequenceTriple* triples, const GranuleEntry* granules, uint8_t* out,
                                      Tickets&& tickets) {
  copy_cross_block_bytes(g, blocks, k, triples, granules, out, tickets);
  g.sync();  // In-block match copy's batches read what every rank's cross-block match copy wrote
  execute_in_block_matches(g, ib, blocks, k, triples, granules, out);
}

template <class G>
ZARRGPU_HD void execute_block_matches(G g, InBlockBatch& ib, const BlockRecord* blocks, uint32_t k,
                                      const SequenceTriple* triples, const GranuleEntry* granules, uint8_t* out) {
  execute_block_matches(g, ib, blocks, k, triples, granules, out, StridedSequences{g.rank(), G::kSize});
}

// After execution: the checksums of the frames that resolution completed, in
// order (§3.1.1 Content_Checksum), then resolution's status. The chunk's final status.
template <class G>
ZARRGPU_HD Status finish_chunk(G g, const ChunkPlan& plan, const FrameRecord* frames, const uint8_t* chunk, const uint8_t* out, bool verify_checksum) {
  if (verify_checksum) {
    for (uint32_t f = 0; f < plan.valid_frames; ++f) {
      const FrameRecord& fr = frames[f];
      if (!fr.has_checksum) continue;
      const uint64_t h = xxh64_group(g, out + fr.output_start, fr.output_size);
      if (static_cast<uint32_t>(h) != load_le32(chunk + fr.checksum_offset)) return Status::checksum_mismatch;
    }
  }
  return plan.resolve_status;
}

}  // namespace zarrgpu::zstd
