// Per-item logic of the block-parallel decoder (CUB's "agent"): the phases
// of decoder/frame_walk.hpp .. block_execution.hpp, each on the unit it is
// parallel over — a chunk (walk, chunk verdict: one thread; block placement: one
// warp), a block (table decoding, offset resolution, literal copy, match copy: one warp),
// a Huffman stream (Huffman decoding: one thread), a block's sequence bitstream (sequence decoding, with
// its block summary: one thread), a chunk (checksums: one warp). Scratch is carved per chunk of
// the current wave from the caller's temp.
#pragma once

#include "codec/bytes_to_bytes/zstd/decoder/block_execution.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/block_sections.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame_walk.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/sequence_resolution.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/agent_decompress.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/policy.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/warp_group.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/wave_layout.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"

namespace zarrgpu::zstd::gpu {

// How match copy runs (docs/zstd-gpu-decoder.md): by the policy's rule
// (automatic: by chunk up to BlockParallelPolicySm90::kMatchesByChunk*,
// else by block), or fixed, which only the benchmark's build of the
// dispatch does (bench/zstd_gpu/experiments.hpp). Either decodes the same
// bytes.
enum class MatchMode : uint8_t { automatic = 0, by_block = 1, by_chunk = 2 };

// BlockParallelParams::weight_class of a wave that is not split.
inline constexpr uint32_t kEveryClass = ~0u;

// One wave of chunks [first_chunk, first_chunk + wave_chunks) and its scratch.
struct BlockParallelParams {
  DecompressParams p;
  size_t first_chunk;
  size_t wave_chunks;
  uint64_t max_chunk_bytes;     // get_decompress_temp_size's max_uncompressed_chunk_bytes
  uint32_t max_frames;          // records per chunk
  uint32_t max_blocks;
  uint64_t literals_per_chunk;  // WaveLayout's: a chunk's share of literals and triples, the walk's limits
  uint64_t triples_per_chunk;
  ChunkPlan* plans;             // [wave_chunks]
  FrameRecord* frames;          // [wave_chunks * max_frames]
  BlockRecord* blocks;          // [wave_chunks * max_blocks]
  uint8_t* literals;            // [wave_chunks * literals_per_chunk]
  SequenceTriple* triples;      // [wave_chunks * triples_per_chunk]
  GranuleEntry* granules;       // [wave_chunks * granule_entries(max_chunk_bytes)]: literal copy's index, zeroed before literal copy
  BlockEntropy* entropy;        // [wave_chunks * max_blocks]: the decoded tables for Huffman decoding and sequence decoding, by block slot
  // [wave_chunks * checkpoints_per_chunk(triples_per_chunk, max_blocks)]:
  // Sequence decoding's checkpoints for offset resolution, written and read where the blocks are in parts.
  ResolutionCheckpoint* checkpoints;
  // The walk's list of the wave's blocks, by slot: the compressed blocks
  // from the front (item_count of them), the raw and RLE blocks from the
  // back (plain_count), so that each phase runs a warp or lane per block it
  // has work for, not per slot (most slots are empty).
  uint32_t* items;              // [wave_chunks * max_blocks]
  uint32_t* item_count;         // zeroed before the walk, which lists the blocks
  uint32_t* plain_count;        // zeroed with item_count
  unsigned long long* cross_queue;  // Cross-block match copy's next part of a listed block; zeroed with item_count
  uint32_t* literals_queue;     // Literal copy's next unit when in parts; zeroed with item_count
  unsigned long long* sequence_total;  // the listed blocks' sequences (table decoding adds them); zeroed with item_count
  unsigned long long* literal_total;   // the literals of the listed blocks with sequences (table decoding); zeroed likewise
  uint32_t* chunk_queue;        // Match copy by chunk's next chunk of the wave; zeroed with item_count
  // Sequence decoding's order of the listed compressed blocks (indices into items),
  // longest chain first (count_order, place_order), and its bucket counts and cursors
  // ([kOrderBuckets] each, zeroed with item_count).
  uint32_t* order;              // [wave_chunks * max_blocks]
  uint32_t* order_counts;
  uint32_t* order_cursors;
  // Weight classes (dispatch_decompress.cu): after table decoding, classify() puts each
  // chunk in class 0 (light) or 1 (heavy: more sequences than the wave's
  // mean) and lists its blocks again in that class's own items and counters,
  // so that the light chunks' later phases run beside the heavy chunks' sequence decoding.
  // The phases after table decoding then run once per class, with `items` and the
  // counters above the class's, and the per-chunk ones take only the chunks
  // of class `weight_class` (kEveryClass: all, when the wave is not split).
  uint8_t* classes;             // [wave_chunks]
  uint32_t weight_class;
  // Match copy in stages (decoder/block_execution.hpp's MatchStages): each launch of
  // cross-block match copy and in-block match copy runs stage `match_stage` of the wave's chunks.
  // Their number,
  // unless fixed (match_stages_fixed != 0): where the wave's blocks are long,
  // the launches the host made (match_stages_max: policy.cuh's rule on the
  // chunk size), at most one per round of the wave's listed blocks (both
  // classes, wave_item_count) over the warps in-block match copy holds at once (match_warps);
  // else one.
  const uint32_t* wave_item_count;
  uint32_t match_warps;
  uint32_t match_stages_max;
  uint32_t match_stages_fixed;
  uint32_t match_stage;
  // Match copy by chunk (execute_chunk below) instead of by block: the policy's
  // rule (MatchMode::automatic), or fixed (the benchmark's experiments).
  MatchMode match_mode;

  __device__ __forceinline__ bool in_class(size_t c) const {
    return weight_class == kEveryClass || classes[c] == weight_class;
  }

  __device__ __forceinline__ FrameRecord* chunk_frames(size_t c) const { return frames + c * max_frames; }
  __device__ __forceinline__ BlockRecord* chunk_blocks(size_t c) const { return blocks + c * max_blocks; }
  __device__ __forceinline__ uint8_t* chunk_literals(size_t c) const { return literals + c * literals_per_chunk; }
  __device__ __forceinline__ GranuleEntry* chunk_granules(size_t c) const {
    return granules + c * granule_entries(max_chunk_bytes);
  }
  __device__ __forceinline__ SequenceTriple* chunk_triples(size_t c) const {
    return triples + c * triples_per_chunk;
  }
  // Block k of chunk c's offset resolution checkpoints.
  __device__ __forceinline__ ResolutionCheckpoint* block_checkpoints(size_t c, uint32_t k) const {
    return checkpoints + c * checkpoints_per_chunk(triples_per_chunk, max_blocks) +
           checkpoint_base(chunk_blocks(c)[k], k);
  }
  // Whether literal copy and match copy run the wave's compressed blocks in parts: when they
  // average kParted sequences or more (level 19: ~15,000 a 128 KiB block;
  // level 9 ~2,000, level 1 a few hundred).
  template <uint32_t kParted>
  __device__ __forceinline__ bool blocks_in_parts() const {
    return *sequence_total >= static_cast<unsigned long long>(kParted) * *item_count;
  }
  // Whether match copy runs by chunk: where fixed so, or by the rule, where
  // the wave's blocks average kSequences or more and its chunk bound is at
  // most kMaxChunk (policy.cuh's kMatchesByChunk*).
  template <uint32_t kSequences, uint64_t kMaxChunk>
  __device__ __forceinline__ bool matches_by_chunk() const {
    if (match_mode != MatchMode::automatic) return match_mode == MatchMode::by_chunk;
    return max_chunk_bytes <= kMaxChunk && blocks_in_parts<kSequences>();
  }
  // Whether the literal runs of the wave's blocks with sequences average
  // kLiterals bytes or fewer (level 19: 2-4; level 9 19-40, level 3 over 60
  // on the bench's data).
  template <uint32_t kLiterals>
  __device__ __forceinline__ bool short_literal_runs() const {
    return *literal_total <= static_cast<unsigned long long>(kLiterals) * *sequence_total;
  }
  // This wave's match copy stages, as above.
  template <uint32_t kParted>
  __device__ __forceinline__ MatchStages match_stages() const {
    uint32_t n = match_stages_fixed;
    if (n == 0) {
      const uint32_t rounds = (*wave_item_count + match_warps - 1) / (match_warps == 0 ? 1u : match_warps);
      n = blocks_in_parts<kParted>() ? rounds : 1u;
    }
    if (n > match_stages_max) n = match_stages_max;
    return MatchStages(n, max_chunk_bytes);
  }
  // The slot of listed raw or RLE block j (j < *plain_count).
  __device__ __forceinline__ uint32_t plain_item(uint32_t j) const {
    return items[wave_chunks * max_blocks - 1 - j];
  }
};

struct AgentBlockParallel {
  const BlockParallelParams& bp;
  // Whether literal copy indexes granules: not where match copy runs by chunk (no cross-block match copy walk
  // reads them).
  bool index_granules = true;

  // The capacity the walk and resolution check chunk c against: its output's,
  // but no more than the wave's chunk bound, which sizes its scratch (the
  // granule index above all). The walk can bound only a chunk's literals and
  // sequences by it, not its decoded size: a chunk of RLE blocks or long
  // matches may decode to more (when a caller's max_uncompressed_chunk_bytes
  // is too small), and literal copy would index granules past the chunk's own, in the
  // next chunk's. Chunk verdict sends such a chunk to the one-warp kernel instead
  // (verdict()).
  __device__ __forceinline__ uint64_t checked_capacity(size_t c) const {
    const uint64_t capacity = bp.p.out_capacities[bp.first_chunk + c];
    return capacity < bp.max_chunk_bytes ? capacity : bp.max_chunk_bytes;
  }

  // The walk, one thread per chunk of the wave.
  __device__ __forceinline__ void walk(size_t c) {
    const size_t chunk = bp.first_chunk + c;
    const auto* in = static_cast<const uint8_t*>(bp.p.in_ptrs[chunk]);
    const size_t in_size = bp.p.in_sizes[chunk];
    const size_t capacity = bp.p.out_capacities[chunk];
    ChunkPlan& plan = bp.plans[c];
    if ((in == nullptr && in_size != 0) || (bp.p.out_ptrs[chunk] == nullptr && capacity != 0)) {
      plan.block_parallel = false;  // the one-warp kernel reports invalid_argument
      return;
    }
    BlockRecord* blocks = bp.chunk_blocks(c);
    ChunkLimits limits = chunk_limits(checked_capacity(c), bp.max_frames, bp.max_blocks);
    // A wave laid out for the batch's measured needs (WaveLayout): a chunk
    // that needs more than its share falls back like one past the worst case.
    if (limits.max_literals_bytes > bp.literals_per_chunk) limits.max_literals_bytes = bp.literals_per_chunk;
    if (limits.max_triples > bp.triples_per_chunk) limits.max_triples = bp.triples_per_chunk;
    walk_chunk(in, in_size, limits, &plan, bp.chunk_frames(c), blocks);
    if (plan.block_count == 0) plan.block_parallel = false;  // no block: the one-warp kernel's frame checks
    if (!plan.block_parallel) return;
    uint32_t n = 0;
    for (uint32_t k = 0; k < plan.block_count; ++k) n += blocks[k].type == BlockType::compressed;
    list_blocks(c, plan.block_count, n, bp);
  }

  // Lists chunk c's `count` blocks, `compressed` of them compressed, in
  // list.items, this chunk's together: compressed ones from the front,
  // counted in *list.item_count, raw and RLE ones from the back, in
  // *list.plain_count (a chunk has at most max_blocks, so the two ends
  // never meet). `list`: this wave's params, or one weight class's.
  __device__ __forceinline__ void list_blocks(size_t c, uint32_t count, uint32_t compressed,
                                              const BlockParallelParams& list) {
    const BlockRecord* blocks = bp.chunk_blocks(c);
    const uint32_t plain = count - compressed;
    uint32_t at = compressed == 0 ? 0 : atomicAdd(list.item_count, compressed);
    uint32_t back = plain == 0 ? 0 : atomicAdd(list.plain_count, plain);
    for (uint32_t k = 0; k < count; ++k) {
      const auto slot = static_cast<uint32_t>(c * bp.max_blocks + k);
      if (blocks[k].type == BlockType::compressed) list.items[at++] = slot;
      else list.items[bp.wave_chunks * bp.max_blocks - 1 - back++] = slot;
    }
  }

  // The phases below run on listed blocks (walk() above): block k of a
  // block-parallel chunk c, compressed unless said otherwise.

  // Table decoding, one warp per listed compressed block.
  __device__ __forceinline__ void tables(Workspace& ws, size_t c, uint32_t k) {
    BlockRecord* blocks = bp.chunk_blocks(c);
    BlockRecord& b = blocks[k];
    const WarpGroup g;
    if (g.rank() == 0) reset_workspace(ws);
    g.sync();
    const auto* in = static_cast<const uint8_t*>(bp.p.in_ptrs[bp.first_chunk + c]);
    prepare_block_sections(g, ws, in, blocks, b, bp.chunk_frames(c)[b.frame].block_size_max,
                           bp.entropy[c * bp.max_blocks + k]);
    // Rank 0 wrote the count (0 on an error).
    if (g.rank() == 0 && b.sequence_count != 0) {
      atomicAdd(bp.sequence_total, static_cast<unsigned long long>(b.sequence_count));
      atomicAdd(bp.literal_total, static_cast<unsigned long long>(b.literals_size));
    }
  }

  // After table decoding, one thread per chunk: its weight class (its sequences against
  // the wave's mean: table decoding counted them), and its blocks listed again in that
  // class's params, light or heavy, as the walk lists them.
  __device__ __forceinline__ void classify(size_t c, const BlockParallelParams& light,
                                           const BlockParallelParams& heavy) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel) return;
    const BlockRecord* blocks = bp.chunk_blocks(c);
    uint64_t sequences = 0, literals = 0;
    uint32_t n = 0;
    for (uint32_t k = 0; k < plan.block_count; ++k) {
      if (blocks[k].type != BlockType::compressed) continue;
      ++n;
      sequences += blocks[k].sequence_count;
      if (blocks[k].sequence_count != 0) literals += blocks[k].literals_size;  // as tables() counts them
    }
    const bool is_heavy = sequences * bp.wave_chunks > *bp.sequence_total;
    const BlockParallelParams& to = is_heavy ? heavy : light;
    bp.classes[c] = static_cast<uint8_t>(to.weight_class);
    if (sequences != 0) atomicAdd(to.sequence_total, static_cast<unsigned long long>(sequences));
    if (literals != 0) atomicAdd(to.literal_total, static_cast<unsigned long long>(literals));
    list_blocks(c, plan.block_count, n, to);
  }

  // Sequence decoding's order where the wave's blocks average kOrderedSequences or more
  // (policy.cuh), in two passes of a thread per listed compressed block:
  // count each block's bucket (order_bucket: by its sequence count, which
  // table decoding read), then place it after every block of a longer bucket. Sequence decoding's
  // lanes (a warp's kLongSequenceBlocks blocks) then run chains of
  // similar length, the longest first: in list order a warp waited for
  // its longest lane, and the wave for its longest chains started last.
  __device__ __forceinline__ void count_order(uint32_t item) const {
    atomicAdd(&bp.order_counts[order_bucket(bp.blocks[bp.items[item]].sequence_count)], 1u);
  }
  __device__ __forceinline__ void place_order(uint32_t item, const uint32_t* bucket_starts) const {
    const uint32_t key = order_bucket(bp.blocks[bp.items[item]].sequence_count);
    bp.order[bucket_starts[key] + atomicAdd(&bp.order_cursors[key], 1u)] = item;
  }

  // Huffman decoding, one thread per Huffman stream s of listed block `item`, with the
  // block's table at `table` and kRingWords words for the stream at `ring`
  // (shared memory).
  __device__ __forceinline__ void literals_stream(uint32_t item, uint32_t s, const HuffmanEntry* table,
                                                  uint64_t* ring) {
    const uint32_t slot = bp.items[item];
    const size_t c = slot / bp.max_blocks;
    RingBitReader reader{};
    reader.ring = ring;
    decode_literals_stream(bp.entropy[slot], table, static_cast<const uint8_t*>(bp.p.in_ptrs[bp.first_chunk + c]),
                           bp.blocks[slot], s, bp.chunk_literals(c), reader);
  }

  // Sequence decoding, one thread per listed block, with the block's tables at `tables`,
  // the length codes at `codes` and kRingWords words for its bitstream at
  // `ring` (shared memory); with `checkpoints`, offset resolution's (as resolve_parts
  // reads them: where the wave's blocks are in parts).
  template <class Tables>
  __device__ __forceinline__ void sequences(uint32_t item, const Tables& tables, const LengthCodeTables& codes,
                                            uint64_t* ring, bool checkpoints) {
    const uint32_t slot = bp.items[item];
    const size_t c = slot / bp.max_blocks;
    LookaheadRingBitReader reader{};
    reader.ring = ring;
    decode_block_sequences(bp.entropy[slot], tables, static_cast<const uint8_t*>(bp.p.in_ptrs[bp.first_chunk + c]),
                           bp.blocks[slot], bp.chunk_triples(c), &codes, reader,
                           checkpoints ? bp.block_checkpoints(c, slot % bp.max_blocks) : nullptr);
  }

  // Block placement, one warp per chunk.
  __device__ __forceinline__ void place(ResolutionScratch& rs, size_t c) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel || !bp.in_class(c)) return;
    place_blocks(WarpGroup{}, rs, plan, bp.chunk_frames(c), bp.chunk_blocks(c));
  }

  // Offset resolution of listed compressed block k of chunk c, by a group G: a warp, or
  // for long blocks the thread block (ThreadBlockGroup), each rank a run of
  // the sequences; rs sized for G. With kCheckpoints (long blocks), the
  // runs start from sequence decoding's checkpoints.
  template <class G, class Scratch, bool kCheckpoints = false>
  __device__ __forceinline__ void resolve(Scratch& rs, size_t c, uint32_t k) {
    BlockRecord& b = bp.chunk_blocks(c)[k];
    resolve_block(G{}, rs, bp.chunk_frames(c)[b.frame], b, bp.chunk_triples(c), checked_capacity(c),
                  kCheckpoints ? bp.block_checkpoints(c, k) : nullptr);
  }

  // Chunk verdict, one thread per chunk. A chunk that does not fit its checked
  // capacity but may fit its output goes to the one-warp kernel, which
  // decodes it whole (or finds its real error); execution and finish() leave
  // it (no valid block, not block parallel).
  __device__ __forceinline__ void verdict(size_t c) {
    ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel || !bp.in_class(c)) return;
    const uint64_t capacity = checked_capacity(c);
    resolve_chunk(plan, bp.chunk_frames(c), bp.chunk_blocks(c), capacity);
    if (plan.resolve_status == Status::output_too_small && bp.p.out_capacities[bp.first_chunk + c] > capacity) {
      plan.block_parallel = false;
      plan.valid_blocks = 0;
      plan.valid_frames = 0;
    }
  }

  __device__ __forceinline__ GranuleEntry* literal_granules(size_t c) const {
    return index_granules ? bp.chunk_granules(c) : nullptr;
  }

  // Literal copy, one warp per listed block (raw and RLE ones too): literals,
  // raw and RLE blocks. This phase and match copy run only on the blocks chunk verdict found
  // valid.
  __device__ __forceinline__ void write_literals(SequenceBatch& sb, size_t c, uint32_t k) {
    const ChunkPlan& plan = bp.plans[c];
    if (k >= plan.valid_blocks) return;
    const size_t chunk = bp.first_chunk + c;
    write_block_literals(WarpGroup{}, sb, static_cast<const uint8_t*>(bp.p.in_ptrs[chunk]), bp.chunk_blocks(c)[k],
                         bp.chunk_literals(c), bp.chunk_triples(c), literal_granules(c),
                         static_cast<uint8_t*>(bp.p.out_ptrs[chunk]));
  }

  // Literal copy of listed compressed block `item` by the thread block's
  // `parts` warps, this warp part `part` (decoder/block_execution.hpp's
  // write_block_literals_part), `sums` in shared memory. Every warp of the
  // thread block calls it together.
  __device__ __forceinline__ void write_literals_part(SequenceBatch& sb, SequenceLengths* sums, uint32_t item,
                                                      uint32_t part, uint32_t parts) {
    const uint32_t slot = bp.items[item];
    const size_t c = slot / bp.max_blocks;
    const uint32_t k = slot % bp.max_blocks;
    const ChunkPlan& plan = bp.plans[c];
    if (k >= plan.valid_blocks) return;  // the whole thread block leaves
    const size_t chunk = bp.first_chunk + c;
    write_block_literals_part(WarpGroup{}, sb, sums, part, parts, [] { __syncthreads(); },
                              static_cast<const uint8_t*>(bp.p.in_ptrs[chunk]), bp.chunk_blocks(c)[k],
                              bp.chunk_literals(c), bp.chunk_triples(c), literal_granules(c),
                              static_cast<uint8_t*>(bp.p.out_ptrs[chunk]));
  }

  // Cross-block match copy, after literal copy of the whole wave: the match bytes read from
  // earlier blocks, for part `part` of `parts` of the sequences of listed
  // block `item`. The warps of the thread block take those sequences from
  // `counter` (shared memory; decoder/block_execution.hpp's tickets).
  __device__ __forceinline__ void copy_cross(uint32_t item, uint32_t part, uint32_t parts, uint32_t* counter,
                                             const MatchStages& stages) {
    const uint32_t slot = bp.items[item];
    const size_t c = slot / bp.max_blocks;
    const uint32_t k = slot % bp.max_blocks;
    const ChunkPlan& plan = bp.plans[c];
    if (k >= plan.valid_blocks) return;  // the whole thread block leaves
    const BlockRecord* blocks = bp.chunk_blocks(c);
    if (stages.of(blocks[k]) != bp.match_stage) return;
    const uint64_t count = blocks[k].sequence_count;
    const auto first = static_cast<uint32_t>(count * part / parts), end = static_cast<uint32_t>(count * (part + 1) / parts);
    if (first == end) return;
    if (threadIdx.x == 0) *counter = first;
    __syncthreads();
    copy_cross_block_bytes(WarpGroup{}, blocks, k, bp.chunk_triples(c), bp.chunk_granules(c),
                           static_cast<uint8_t*>(bp.p.out_ptrs[bp.first_chunk + c]), WarpTickets{counter, end},
                           kWholeBlock,
                           stages.floor(bp.match_stage));
  }

  // In-block match copy, one warp per listed compressed block of the launch's stage,
  // after cross-block match copy: the matches within the block. No warp waits for another.
  template <class Policy>
  __device__ __forceinline__ void execute(InBlockBatch& ib, size_t c, uint32_t k) {
    const ChunkPlan& plan = bp.plans[c];
    if (k >= plan.valid_blocks) return;
    const BlockRecord* blocks = bp.chunk_blocks(c);
    const MatchStages stages = bp.match_stages<Policy::kPartedSequences>();
    if (stages.of(blocks[k]) != bp.match_stage) return;
    execute_in_block_matches(WarpGroup{}, ib, blocks, k, bp.chunk_triples(c), bp.chunk_granules(c),
                             static_cast<uint8_t*>(bp.p.out_ptrs[bp.first_chunk + c]), 0, kWholeBlock,
                             stages.floor(bp.match_stage));
  }

  // Match copy by chunk, one warp per chunk of the wave (of the class), after
  // literal copy of the whole wave: every match of the blocks chunk verdict validated, in order
  // (decoder/block_execution.hpp's execute_chunk_matches).
  template <uint32_t N>
  __device__ __forceinline__ void execute_chunk(ChunkBatch<N>& cb, size_t c) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel || !bp.in_class(c)) return;
    execute_chunk_matches(WarpGroup{}, cb, bp.chunk_blocks(c), plan.valid_blocks, bp.chunk_triples(c),
                          static_cast<uint8_t*>(bp.p.out_ptrs[bp.first_chunk + c]));
  }

  // Literal copy and match copy by chunk in one pass, one warp per chunk of the wave
  // (of the class), after resolution: the blocks chunk verdict validated, in order, each
  // batch's literals then its matches (decoder/block_execution.hpp's
  // write_chunk_output).
  template <uint32_t N>
  __device__ __forceinline__ void write_chunk(ChunkBatch<N>& cb, size_t c) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel || !bp.in_class(c)) return;
    const size_t chunk = bp.first_chunk + c;
    write_chunk_output(WarpGroup{}, cb, static_cast<const uint8_t*>(bp.p.in_ptrs[chunk]), bp.chunk_blocks(c),
                       plan.valid_blocks, bp.chunk_literals(c), bp.chunk_triples(c),
                       static_cast<uint8_t*>(bp.p.out_ptrs[chunk]));
  }

  // After execution, one warp per chunk: the checksums and the chunk's status.
  __device__ __forceinline__ void finish(size_t c) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel || !bp.in_class(c)) return;
    const WarpGroup g;
    const size_t chunk = bp.first_chunk + c;
    const auto* in = static_cast<const uint8_t*>(bp.p.in_ptrs[chunk]);
    const auto* out = static_cast<const uint8_t*>(bp.p.out_ptrs[chunk]);
    const Status st = finish_chunk(g, plan, bp.chunk_frames(c), in, out, bp.p.verify_checksum);
    if (g.rank() == 0) {
      bp.p.statuses[chunk] = st;
      bp.p.out_sizes[chunk] = st == Status::ok ? plan.decoded_size : 0;
    }
  }
};

}  // namespace zarrgpu::zstd::gpu
