// Per-item logic of the block-parallel decoder (CUB's "agent"): the phases
// of decoder/frame_walk.hpp .. block_execution.hpp, each on the unit it is
// parallel over — a chunk (walk, resolution: one thread), a compressed block
// (sections: one warp), a chunk's blocks in order (execution: one warp).
// Scratch is carved per chunk of the current wave from the caller's temp.
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

  __device__ __forceinline__ FrameRecord* chunk_frames(size_t c) const { return frames + c * max_frames; }
  __device__ __forceinline__ BlockRecord* chunk_blocks(size_t c) const { return blocks + c * max_blocks; }
  __device__ __forceinline__ uint8_t* chunk_literals(size_t c) const { return literals + c * max_chunk_bytes; }
  __device__ __forceinline__ SequenceTriple* chunk_triples(size_t c) const {
    return triples + c * (max_chunk_bytes / 3);
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

  // Phase B, one warp per block slot; slots past the chunk's blocks leave.
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
  }

  // Phase C, one thread per chunk.
  __device__ __forceinline__ void resolve(size_t c) {
    ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel) return;
    resolve_chunk(plan, bp.chunk_frames(c), bp.chunk_blocks(c), bp.chunk_triples(c),
                  bp.p.out_capacities[bp.first_chunk + c]);
  }

  // Phase D, one warp per chunk: its blocks in order, then the checksums.
  __device__ __forceinline__ void execute(Workspace& ws, size_t c) {
    const ChunkPlan& plan = bp.plans[c];
    if (!plan.block_parallel) return;
    const WarpGroup g;
    const size_t chunk = bp.first_chunk + c;
    const auto* in = static_cast<const uint8_t*>(bp.p.in_ptrs[chunk]);
    auto* out = static_cast<uint8_t*>(bp.p.out_ptrs[chunk]);
    const BlockRecord* blocks = bp.chunk_blocks(c);
    for (uint32_t i = 0; i < plan.valid_blocks; ++i) {
      execute_block(g, ws, in, blocks[i], bp.chunk_literals(c), bp.chunk_triples(c), out);
    }
    const Status st = finish_chunk(g, plan, bp.chunk_frames(c), in, out, bp.p.verify_checksum);
    if (g.rank() == 0) {
      bp.p.statuses[chunk] = st;
      bp.p.out_sizes[chunk] = st == Status::ok ? plan.decoded_size : 0;
    }
  }
};

}  // namespace zarrgpu::zstd::gpu
