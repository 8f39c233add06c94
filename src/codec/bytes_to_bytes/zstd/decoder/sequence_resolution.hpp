// Block-parallel decoding, resolution: output offsets, repeat offsets
// (§3.1.1.5) and every check that depends on where the output stands, with
// the statuses decode_chunk() gives. Only the repeat offsets entering a
// block and its output offset tie it to the blocks before it; both follow
// from small per-block summaries, so C runs in four steps:
//  Block summary summarize_block() — the block's repeat-offset map (repeat_offsets.hpp)
//     and its match bytes. Entropy decoding's sequence decoding makes them as it decodes the
//     sequences (block_sections.hpp's decode_block_sequences), so the
//     decoders run no block summary step; summarize_block() computes the same from the
//     triples alone, by a group: the reference the tests hold sequence decoding's summary
//     to, and the summary of triples changed after sequence decoding (the tests' mutations).
//  Block placement place_blocks() — a group per chunk, a scan over block summaries:
//     every block's output offset and entering repeat offsets, as if every
//     block before it were valid. Exact for each block up to the chunk's
//     first error, which is all that offset resolution and chunk verdict ever use.
//  Offset resolution resolve_block() — a group per compressed block: the block's checks
//     and resolved offsets. The ranks split the sequences into runs and
//     scan the runs' summaries the way block placement scans blocks.
//  Chunk verdict resolve_chunk() — one thread per chunk: the first error in stream
//     order, frame checks included, and the chunk's verdict.
#pragma once

#include "block.hpp"
#include "config.hpp"
#include "frame_walk.hpp"
#include "group.hpp"
#include "repeat_offsets.hpp"
#include "sequences.hpp"
#include "workspace.hpp"

namespace zarrgpu::zstd {

// Where block k of a chunk (record b) keeps its offset resolution checkpoints in the
// chunk's (workspace.hpp's ResolutionCheckpoint).
ZARRGPU_HD_INLINE uint32_t checkpoint_base(const BlockRecord& b, uint32_t k) {
  return b.triples_offset / kCheckpointSequences + k;
}

// Visits triples [lo, hi) in order, f(i, triple) returning false to stop
// after triple i; with kWrite, what f leaves in each triple is stored back
// (the triples after a stop unchanged). Resolution gives each rank a run of
// consecutive triples, so on a GPU the lanes of a warp read 32 runs apart:
// each 4-byte load would touch 32 cache lines, three per triple. Here they
// go four at a time, as three 16-byte loads (and stores) wherever the
// address is 16-byte aligned (every fourth triple, 48 bytes).
struct alignas(16) TripleWords {
  uint32_t x, y, z, w;
};
template <bool kWrite, class Triple, class F>
ZARRGPU_HD_INLINE void visit_triples(Triple* t, uint32_t lo, uint32_t hi, F&& f) {
  static_assert(sizeof(SequenceTriple) == 12, "four triples are three 16-byte words");
  uint32_t i = lo;
  auto one = [&]() {
    SequenceTriple s = t[i];
    const bool go = f(i, s);
    if constexpr (kWrite) t[i] = s;
    ++i;
    return go;
  };
  while (i < hi && (reinterpret_cast<uintptr_t>(t + i) & 15u) != 0) {
    if (!one()) return;
  }
  for (; i + 4 <= hi; i += 4) {
    SequenceTriple q[4];
#if defined(__CUDA_ARCH__)
    const auto* v = reinterpret_cast<const TripleWords*>(t + i);
    const TripleWords a = v[0], b = v[1], c = v[2];
    q[0].literals_length = a.x, q[0].match_length = a.y, q[0].offset = a.z;
    q[1].literals_length = a.w, q[1].match_length = b.x, q[1].offset = b.y;
    q[2].literals_length = b.z, q[2].match_length = b.w, q[2].offset = c.x;
    q[3].literals_length = c.y, q[3].match_length = c.z, q[3].offset = c.w;
#else
    for (uint32_t j = 0; j < 4; ++j) q[j] = t[i + j];
#endif
    bool go = true;
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (uint32_t j = 0; j < 4; ++j) {
      if (go) go = f(i + j, q[j]);
    }
    if constexpr (kWrite) {
#if defined(__CUDA_ARCH__)
      auto* w = reinterpret_cast<TripleWords*>(t + i);
      w[0] = TripleWords{q[0].literals_length, q[0].match_length, q[0].offset, q[1].literals_length};
      w[1] = TripleWords{q[1].match_length, q[1].offset, q[2].literals_length, q[2].match_length};
      w[2] = TripleWords{q[2].offset, q[3].literals_length, q[3].match_length, q[3].offset};
#else
      for (uint32_t j = 0; j < 4; ++j) t[i + j] = q[j];
#endif
    }
    if (!go) return;
  }
  while (i < hi) {
    if (!one()) return;
  }
}

// Rank `rank`'s run [lo, hi) of n sequences.
ZARRGPU_HD_INLINE void rank_run(uint32_t n, uint32_t rank, uint32_t ranks, uint32_t* lo, uint32_t* hi) {
  *lo = static_cast<uint32_t>(uint64_t{n} * rank / ranks);
  *hi = static_cast<uint32_t>(uint64_t{n} * (rank + 1) / ranks);
}

// Each rank hands in the summary of its run; returns the summary of the
// runs of the ranks before it. Rank 0 also gets all of them in *total.
template <class G, class Scratch>
ZARRGPU_HD ResolutionRun exclusive_scan_runs(G g, Scratch& rs, const ResolutionRun& run, ResolutionRun* total) {
  static_assert(G::kSize <= Scratch::kSize, "one ResolutionRun slot per rank");
  g.sync();  // earlier users of rs are done
  rs.runs[g.rank()] = run;
  g.sync();
  if (g.rank() == 0) {
    ResolutionRun acc{repeat_identity(), 0, 0};
    for (uint32_t r = 0; r < G::kSize; ++r) {
      const ResolutionRun own = rs.runs[r];
      rs.runs[r] = acc;
      acc.map = repeat_compose(acc.map, own.map);
      acc.literals += own.literals;
      acc.matches += own.matches;
    }
    if (total != nullptr) *total = acc;
  }
  g.sync();
  const ResolutionRun before = rs.runs[g.rank()];
  g.sync();  // every rank has its prefix before rs is reused
  return before;
}

// Each rank summarizes triples [lo, hi); returns the summary of the runs of
// the ranks before it. Rank 0 also gets the whole block's in *total.
template <class G, class Scratch>
ZARRGPU_HD ResolutionRun scan_runs(G g, Scratch& rs, const SequenceTriple* t, uint32_t lo, uint32_t hi,
                                   ResolutionRun* total) {
  ResolutionRun run{repeat_identity(), 0, 0};
  visit_triples<false>(t, lo, hi, [&run](uint32_t, const SequenceTriple& s) {
    extend_run(run, s.offset, s.literals_length, s.match_length);
    return true;
  });
  return exclusive_scan_runs(g, rs, run, total);
}

// Block summary for compressed block b from its triples (entropy decoding done; see above). A
// block that entropy decoding failed is never passed by block placement's exact prefix, so its
// summary is the identity.
template <class G, class Scratch>
ZARRGPU_HD void summarize_block(G g, Scratch& rs, BlockRecord& b, const SequenceTriple* triples) {
  const uint32_t n = b.status != Status::ok               ? 0u
                     : b.sequence_count < b.triples_capacity ? b.sequence_count
                                                             : b.triples_capacity;
  uint32_t lo = 0, hi = 0;
  rank_run(n, g.rank(), G::kSize, &lo, &hi);
  ResolutionRun total{repeat_identity(), 0, 0};
  scan_runs(g, rs, triples + b.triples_offset, lo, hi, &total);
  if (g.rank() == 0) {
    b.repeat_map = total.map;
    b.match_bytes = total.matches;
  }
  g.sync();
}

// Sequence decoding's checkpoints of compressed block b (decode_block_sequences), from its
// triples alone, serially: the reference for sequence decoding's, and the checkpoints of
// triples changed after sequence decoding (the tests' mutations).
ZARRGPU_HD_INLINE void checkpoint_block(const BlockRecord& b, const SequenceTriple* triples,
                                        ResolutionCheckpoint* checkpoints) {
  const uint32_t n = b.sequence_count < b.triples_capacity ? b.sequence_count : b.triples_capacity;
  const SequenceTriple* t = triples + b.triples_offset;
  ResolutionCheckpoint s{repeat_identity(), 0, 0};
  for (uint32_t i = 0; i < n; ++i) {
    if (i % kCheckpointSequences == 0) checkpoints[i / kCheckpointSequences] = s;
    extend_run(s, t[i].offset, t[i].literals_length, t[i].match_length);
  }
}

// Block placement for a chunk (every compressed block summarized): each rank takes a
// run of a frame's blocks, and the runs' output bytes (in `literals`) and
// repeat maps are scanned as offset resolution scans a block's sequences.
template <class G, class Scratch>
ZARRGPU_HD void place_blocks(G g, Scratch& rs, const ChunkPlan& plan, FrameRecord* frames,
                             BlockRecord* blocks) {
  auto output_bytes = [](const BlockRecord& b) {
    return b.type == BlockType::compressed ? uint64_t{b.literals_size} + b.match_bytes : uint64_t{b.size};
  };
  uint64_t op = 0;
  for (uint32_t f = 0; f < plan.frame_count; ++f) {
    FrameRecord& fr = frames[f];
    if (g.rank() == 0) fr.output_start = op;
    BlockRecord* fb = blocks + fr.first_block;
    uint32_t lo = 0, hi = 0;
    rank_run(fr.block_count, g.rank(), G::kSize, &lo, &hi);
    ResolutionRun run{repeat_identity(), 0, 0};
    for (uint32_t i = lo; i < hi; ++i) {
      run.literals += output_bytes(fb[i]);
      if (fb[i].type == BlockType::compressed) run.map = repeat_compose(run.map, fb[i].repeat_map);
    }
    const ResolutionRun before = exclusive_scan_runs(g, rs, run, nullptr);
    const uint32_t first[3] = {1, 4, 8};  // §3.1.1.5: every frame starts with these
    uint32_t rep[3];
    repeat_apply(before.map, first, rep);
    uint64_t at = op + before.literals;
    for (uint32_t i = lo; i < hi; ++i) {
      BlockRecord& b = fb[i];
      b.output_offset = at;
      for (uint32_t s = 0; s < 3; ++s) b.repeat_in[s] = rep[s];
      at += output_bytes(b);
      if (b.type == BlockType::compressed) {
        uint32_t next[3];
        repeat_apply(b.repeat_map, rep, next);
        for (uint32_t s = 0; s < 3; ++s) rep[s] = next[s];
      }
    }
    op = g.shuffle64(at, G::kSize - 1);  // the last rank's run ends the frame
  }
}

// The same on one thread.
ZARRGPU_HD_INLINE void place_blocks(const ChunkPlan& plan, FrameRecord* frames, BlockRecord* blocks) {
  ResolutionScratch rs;
  place_blocks(SerialGroup{}, rs, plan, frames, blocks);
}

// Offset resolution for compressed block b of frame fr (block placement done): b.resolve_status and the
// resolved offsets of its triples. The checks and their order are
// those of a serial pass over the sequences; each rank checks its run from
// the exact state before it, and the lowest failing index wins — runs after
// a failure may see garbage and fail too, but never at a lower index.
// The state before a run: without `checkpoints`, each rank scans its run
// first (scan_runs); with the block's checkpoints (sequence decoding's), runs are whole
// spans of kCheckpointSequences and each starts from its span's
// checkpoint: one pass over the triples, no scan and its barriers.
template <class G, class Scratch>
ZARRGPU_HD void resolve_block(G g, Scratch& rs, const FrameRecord& fr, BlockRecord& b, SequenceTriple* triples,
                              size_t capacity, const ResolutionCheckpoint* checkpoints = nullptr) {
  const uint64_t op_start = b.output_offset;
  Status pre = Status::ok;
  uint64_t room = 0;
  Status room_error = Status::corrupt_block;
  if (op_start > capacity) {
    pre = Status::output_too_small;  // only past an earlier error, which chunk verdict meets first
  } else {
    const uint64_t cap_left = capacity - op_start;
    const bool capacity_bound = cap_left < fr.block_size_max;
    room = capacity_bound ? cap_left : fr.block_size_max;
    room_error = capacity_bound ? Status::output_too_small : Status::corrupt_block;
    const bool huffman = b.literals_type == LiteralsType::compressed || b.literals_type == LiteralsType::treeless;
    if (b.status != Status::ok && b.stage == SectionStage::literals_header) pre = b.status;
    else if (huffman && b.literals_size > room) pre = Status::output_too_small;
    else if (b.status != Status::ok && b.stage == SectionStage::literals_data) pre = b.status;
    else if (b.literals_size > room) pre = room_error;
    else if (b.status != Status::ok) pre = b.status;
  }
  if (pre != Status::ok) {
    if (g.rank() == 0) b.resolve_status = pre;
    g.sync();
    return;
  }

  const uint64_t lit_size = b.literals_size;
  const uint64_t match_room = room - lit_size;
  const uint64_t frame_start = fr.output_start;
  const uint32_t n = b.sequence_count < b.triples_capacity ? b.sequence_count : b.triples_capacity;
  SequenceTriple* t = triples + b.triples_offset;
  uint32_t lo = 0, hi = 0;
  ResolutionRun before{repeat_identity(), 0, 0};
  if (checkpoints == nullptr) {
    rank_run(n, g.rank(), G::kSize, &lo, &hi);
    before = scan_runs(g, rs, t, lo, hi, nullptr);  // ends with a barrier: rs is free for the errors
  } else {
    // rs is free: every earlier use of it ended with a barrier (this
    // function's last step, and the group's first use of rs).
    constexpr uint32_t K = kCheckpointSequences;
    uint32_t first = 0, last = 0;
    rank_run((n + K - 1) / K, g.rank(), G::kSize, &first, &last);
    lo = first * K;
    hi = last * K < n ? last * K : n;
    if (lo < hi) before = checkpoints[first];
  }
  uint32_t rep[3];
  repeat_apply(before.map, b.repeat_in, rep);
  uint64_t cur_lit = before.literals, matched = before.matches;
  ResolutionError e{~0u, static_cast<uint32_t>(Status::ok)};
  const uint64_t window = fr.window_size;
  visit_triples<true>(t, lo, hi, [&](uint32_t i, SequenceTriple& s) {
    const uint32_t offset = resolve_offset(s.offset, s.literals_length, rep);
    Status st = Status::ok;
    if (cur_lit + s.literals_length > lit_size) st = Status::corrupt_sequences;
    cur_lit += s.literals_length;
    const uint64_t cur_op = op_start + cur_lit + matched;
    if (st == Status::ok && matched + s.match_length > match_room) st = room_error;
    if (st == Status::ok && (offset == 0 || offset > cur_op - frame_start || offset > window)) {
      st = Status::offset_out_of_range;
    }
    if (st != Status::ok) {
      e.index = i;
      e.status = static_cast<uint32_t>(st);
      return false;
    }
    matched += s.match_length;
    s.offset = offset;
    return true;
  });
  rs.errors[g.rank()] = e;
  g.sync();
  if (g.rank() == 0) {
    ResolutionError first{~0u, static_cast<uint32_t>(Status::ok)};
    for (uint32_t r = 0; r < G::kSize; ++r) {
      const ResolutionError x = rs.errors[r];
      if (x.index < first.index) first.index = x.index, first.status = x.status;
    }
    Status st = static_cast<Status>(first.status);
    // triples_bound(): past triples_capacity a sequence is an error.
    if (first.index == ~0u && b.sequence_count > b.triples_capacity) st = Status::corrupt_sequences;
    if (st == Status::ok && b.sequence_count > 0 && !b.bitstream_exact) st = Status::corrupt_sequences;
    b.resolve_status = st;
  }
  g.sync();
}

// Chunk verdict for a chunk (offset resolution done for every compressed block): plan.resolve_status,
// valid_blocks, valid_frames, decoded_size, and the valid frames'
// output_size. The status is final unless a checksum of a valid frame fails.
ZARRGPU_HD_INLINE void resolve_chunk(ChunkPlan& plan, FrameRecord* frames, const BlockRecord* blocks,
                                     size_t capacity) {
  uint64_t op = 0;
  plan.valid_blocks = 0;
  plan.valid_frames = 0;
  plan.decoded_size = 0;
  auto finish = [&](Status s) { plan.resolve_status = s; };
  for (uint32_t f = 0; f < plan.frame_count; ++f) {
    FrameRecord& fr = frames[f];
    const bool last = f + 1 == plan.frame_count;
    if (fr.has_content_size && fr.content_size > capacity - op) return finish(Status::output_too_small);
    for (uint32_t i = 0; i < fr.block_count; ++i) {
      const BlockRecord& b = blocks[fr.first_block + i];
      if (b.type == BlockType::compressed) {
        if (b.resolve_status != Status::ok) return finish(b.resolve_status);
        op += b.literals_size + b.match_bytes;
      } else {
        if (b.size > capacity - op) return finish(Status::output_too_small);
        op += b.size;
      }
      ++plan.valid_blocks;
    }
    if (last && plan.walk_stop == WalkStop::block) return finish(plan.walk_status);
    fr.output_size = op - fr.output_start;
    if (fr.has_content_size && fr.output_size != fr.content_size) return finish(Status::content_size_mismatch);
    if (last && plan.walk_stop == WalkStop::checksum) return finish(plan.walk_status);
    ++plan.valid_frames;
  }
  if (plan.walk_status != Status::ok) return finish(plan.walk_status);
  plan.decoded_size = op;
  finish(Status::ok);
}

}  // namespace zarrgpu::zstd
