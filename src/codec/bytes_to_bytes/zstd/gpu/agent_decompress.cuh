// Per-chunk logic of the batched decoder (CUB's "agent"): one warp decodes
// one chunk with the shared format code (decoder/frame.hpp) and records the
// chunk's status and decoded size.
#pragma once

#include "codec/bytes_to_bytes/zstd/decoder/frame.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame_walk.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/workspace.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/warp_group.cuh"

namespace zarrgpu::zstd::gpu {

struct DecompressParams {
  const void* const* in_ptrs;
  const size_t* in_sizes;
  void* const* out_ptrs;
  const size_t* out_capacities;
  size_t* out_sizes;
  Status* statuses;
  size_t num_chunks;            // chunks of this launch: first_chunk + [0, num_chunks)
  bool verify_checksum;
  size_t first_chunk;
  // Block-parallel mode: the chunks whose plan says block_parallel are the
  // other kernels' (kernel_block_parallel.cuh); null: every chunk is ours.
  const ChunkPlan* plans;
};

struct AgentDecompress {
  Workspace& ws;
  const DecompressParams& p;

  __device__ __forceinline__ void decode(size_t local) {
    if (p.plans != nullptr && p.plans[local].block_parallel) return;
    const size_t chunk = p.first_chunk + local;
    const WarpGroup g;
    const auto* in = static_cast<const uint8_t*>(p.in_ptrs[chunk]);
    const size_t in_size = p.in_sizes[chunk];
    auto* out = static_cast<uint8_t*>(p.out_ptrs[chunk]);
    const size_t capacity = p.out_capacities[chunk];
    Status st = Status::invalid_argument;
    size_t decoded = 0;
    if ((in != nullptr || in_size == 0) && (out != nullptr || capacity == 0)) {
      if (g.rank() == 0) reset_workspace(ws);
      g.sync();
      st = decode_chunk(g, ws, in, in_size, out, capacity, &decoded, p.verify_checksum);
    }
    if (g.rank() == 0) {
      p.statuses[chunk] = st;
      p.out_sizes[chunk] = st == Status::ok ? decoded : 0;
    }
  }
};

}  // namespace zarrgpu::zstd::gpu
