// Per-item logic of the block-parallel decoder (CUB's "agent"): the phases
// of decoder/frame_walk.hpp .. block_execution.hpp, each on the unit it is
// parallel over — a chunk (walk, C2 placement, C4 verdict: one thread), a
// block (sections with C1, C3 resolution, execution: one warp), a chunk
// (checksums: one warp). Scratch is carved per chunk of the current wave
// from the caller's temp.
#pragma once

#include "codec/bytes_to_bytes/zstd/decoder/block_execution.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/block_sections.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame_walk.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/sequence_resolution.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/agent_decompress.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/warp_group.cuh"

namespace zarrgpu::zstd::gpu {

// One wave of chunks [first_chunk, first_chunk + wave_chunks) and its scratch.
struct BlockParallelParams {
  DecompressParams p;
  size_t first_chunk;
  size_t wave_chunks;
  uint64_t max_chunk_bytes;     // get_decompress_temp_size's max_uncompressed_chunk_bytes
  uint32_t max_frames;          // records per chunk
  uint32_t max_blocks;
  uint32_t min_blocks;          // fewer blocks: the one-warp-per-chunk kernel decodes the chunk
  ChunkPlan* plans;             // [wave_chunks]
  FrameRecord* frames;          // [wave_chunks * max_frames]
  BlockRecord* blocks;          // [wave_chunks * max_blocks]
  uint8_t* literals;            // [wave_chunks * max_chunk_bytes]
  SequenceTriple* triples;      // [wave_chunks * (max_chunk_bytes / 3)]
  unsigned long long* ticket;   // phase D's work counter, zero before the execute kernel
  uint32_t* block_done;         // [wave_chunks * max_blocks] bytes final per block, zero before the execute kernel

  __device__ __forceinline__ FrameRecord* chunk_frames(size_t c) const { return frames + c * max_frames; }
  __device__ __forceinline__ BlockRecord* chunk_blocks(size_t c) const { return blocks + c * max_blocks; }
  __device__ __forceinline__ uint8_t* chunk_literals(size_t c) const { return literals + c * max_chunk_bytes; }
  __device__ __forceinline__ SequenceTriple* chunk_triples(size_t c) const {
    return triples + c * (max_chunk_bytes / 3);
  }
  __device__ __forceinline__ uint32_t* chunk_done(size_t c) const { return block_done + c * max_blocks; }
};

// Phase D's view of the blocks before block k of a chunk (the Deps of
// execute_block(), called by lane 0): per block slot, a counter of the output
// bytes the block has made final, from its start. Writer: the warp's stores,
// __syncwarp (in execute_block), then lane 0's __threadfence and a volatile
// store of the counter. Reader: lane 0 polls with volatile loads and
// __nanosleep backoff, __threadfence, then __syncwarp before any lane reads
// those bytes.
struct BlockProgress {
  const BlockRecord* blocks;
  uint32_t* done;
  uint32_t k;
  uint32_t complete_from;  // blocks [complete_from, k) are known to be complete

  __device__ __forceinline__ void wait(uint64_t lowest, uint64_t end) {
    // Block j - 1 holds bytes at or after `lowest` while block j starts after it.
    for (uint32_t j = k; j > 0 && blocks[j].output_offset > lowest; --j) {
      const uint32_t i = j - 1;
      const uint64_t s = blocks[i].output_offset, e = blocks[j].output_offset;
      if (i >= complete_from || end <= s) continue;
      const uint32_t need = static_cast<uint32_t>((end < e ? end : e) - s);
      uint32_t ns = 32;
      while (*static_cast<volatile uint32_t*>(done + i) < need) {
        __nanosleep(ns);
        if (ns < 2048) ns *= 2;
      }
      if (need == e - s && j == complete_from) complete_from = i;
    }
    __threadfence();
  }

  __device__ __forceinline__ void publish(uint64_t bytes) {
    __threadfence();
    *static_cast<volatile uint32_t*>(done + k) = static_cast<uint32_t>(bytes);
  }
};

struct AgentBlockParallel {
  const BlockParallelParams& bp;

  // Phase A, one thread per chunk of the wave.
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
    const uint64_t cap = capacity < bp.max_chunk_bytes ? capacity : bp.max_chunk_bytes;
    walk_chunk(in, in_size, chunk_limits(cap, bp.max_frames, bp.max_blocks), &plan, bp.chunk_frames(c),
               bp.chunk_blocks(c));
    if (plan.block_count < bp.min_blocks) plan.block_parallel = false;
  }

  // Phase B and C1, one warp per block slot; slots past the chunk's blocks leave.
  __device__ __forceinline__ void sections(Workspace& ws, size_t c, uint32_t k) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel || k >= plan.block_count) return;
    BlockRecord* blocks = bp.chunk_blocks(c);
    BlockRecord& b = blocks[k];
    if (b.type != BlockType::compressed) return;
    const WarpGroup g;
    if (g.rank() == 0) reset_workspace(ws);
    g.sync();
    const auto* in = static_cast<const uint8_t*>(bp.p.in_ptrs[bp.first_chunk + c]);
    decode_block_sections(g, ws, in, blocks, b, bp.chunk_frames(c)[b.frame].block_size_max, bp.chunk_literals(c),
                          bp.chunk_triples(c));
    summarize_block(g, ws, b, bp.chunk_triples(c));
  }

  // C2, one thread per chunk.
  __device__ __forceinline__ void place(size_t c) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel) return;
    place_blocks(plan, bp.chunk_frames(c), bp.chunk_blocks(c));
  }

  // C3, one warp per block slot.
  __device__ __forceinline__ void resolve(Workspace& ws, size_t c, uint32_t k) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel || k >= plan.block_count) return;
    BlockRecord& b = bp.chunk_blocks(c)[k];
    if (b.type != BlockType::compressed) return;
    resolve_block(WarpGroup{}, ws, bp.chunk_frames(c)[b.frame], b, bp.chunk_triples(c),
                  bp.p.out_capacities[bp.first_chunk + c]);
  }

  // C4, one thread per chunk.
  __device__ __forceinline__ void verdict(size_t c) {
    ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel) return;
    resolve_chunk(plan, bp.chunk_frames(c), bp.chunk_blocks(c), bp.p.out_capacities[bp.first_chunk + c]);
  }

  // Phase D, one warp per block. A match may read the output of earlier
  // blocks of its frame: before each batch of sequences the warp waits until
  // the blocks it reads have published that far (BlockProgress), so a
  // frame's blocks run as a pipeline rather than one after the other.
  //
  // Forward progress (as in CUB's decoupled look-back): a warp does not take
  // the block of its launch index but the next ticket of an atomic counter,
  // and tickets follow the blocks' order (chunk by chunk, blocks in frame
  // order). A warp that holds a ticket is resident and running, and waits
  // only for blocks of lower tickets, which resident warps hold too. So the
  // lowest unfinished ticket waits on nothing unfinished and always makes
  // progress, whatever order or number of warps the hardware schedules; a
  // launch-index order could instead leave a waiting warp resident while the
  // block it waits for has no SM to run on.
  __device__ __forceinline__ void execute(Workspace& ws) {
    const WarpGroup g;
    unsigned long long t = 0;
    if (g.rank() == 0) t = atomicAdd(bp.ticket, 1ull);
    t = g.broadcast64(t);
    if (t >= static_cast<unsigned long long>(bp.wave_chunks) * bp.max_blocks) return;
    const size_t c = static_cast<size_t>(t / bp.max_blocks);
    const uint32_t k = static_cast<uint32_t>(t % bp.max_blocks);
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel || k >= plan.valid_blocks) return;
    const BlockRecord* blocks = bp.chunk_blocks(c);
    const size_t chunk = bp.first_chunk + c;
    const auto* in = static_cast<const uint8_t*>(bp.p.in_ptrs[chunk]);
    auto* out = static_cast<uint8_t*>(bp.p.out_ptrs[chunk]);
    BlockProgress progress{blocks, bp.chunk_done(c), k, k};
    execute_block(g, ws, in, blocks[k], bp.chunk_literals(c), bp.chunk_triples(c), out, progress);
  }

  // After phase D, one warp per chunk: the checksums and the chunk's status.
  __device__ __forceinline__ void finish(size_t c) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel) return;
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
