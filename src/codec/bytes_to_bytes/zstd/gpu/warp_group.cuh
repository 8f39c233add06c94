// A warp as the decoder's group (see decoder/group.hpp): lane 0 runs the
// serial parts of the format, all 32 lanes share copies and Huffman streams.
#pragma once

#include <cuda_runtime.h>

#include "codec/bytes_to_bytes/zstd/decoder/config.hpp"

namespace zarrgpu::zstd::gpu {

struct WarpGroup {
  static constexpr uint32_t kSize = 32;
  __device__ __forceinline__ uint32_t rank() const { return threadIdx.x & 31u; }
  __device__ __forceinline__ void sync() const { __syncwarp(); }
  __device__ __forceinline__ uint32_t broadcast(uint32_t v) const { return __shfl_sync(0xFFFFFFFFu, v, 0); }
  __device__ __forceinline__ uint64_t broadcast64(uint64_t v) const { return shuffle64(v, 0); }
  __device__ __forceinline__ uint64_t shuffle64(uint64_t v, uint32_t src) const {
    const uint32_t lo = __shfl_sync(0xFFFFFFFFu, static_cast<uint32_t>(v), src);
    const uint32_t hi = __shfl_sync(0xFFFFFFFFu, static_cast<uint32_t>(v >> 32), src);
    return (static_cast<uint64_t>(hi) << 32) | lo;
  }
  __device__ __forceinline__ bool any(bool p) const { return __any_sync(0xFFFFFFFFu, p) != 0; }
  __device__ __forceinline__ uint32_t ballot(bool p) const { return __ballot_sync(0xFFFFFFFFu, p); }
  __device__ __forceinline__ uint32_t match_any(uint32_t v) const { return __match_any_sync(0xFFFFFFFFu, v); }
  __device__ __forceinline__ uint32_t inclusive_sum(uint32_t v) const {
#pragma unroll
    for (uint32_t d = 1; d < kSize; d <<= 1) {
      const uint32_t u = __shfl_up_sync(0xFFFFFFFFu, v, d);
      if (rank() >= d) v += u;
    }
    return v;
  }
};

// A thread block of kThreads as one group, for the phases whose group
// only syncs and ranks (resolution's scans: sequence_resolution.hpp).
template <uint32_t kThreads>
struct ThreadBlockGroup {
  static constexpr uint32_t kSize = kThreads;
  __device__ __forceinline__ uint32_t rank() const { return threadIdx.x; }
  __device__ __forceinline__ void sync() const { __syncthreads(); }
};

// Sequence tickets (decoder/block_execution.hpp's copy_cross_block_bytes)
// from one counter in shared memory for all warps of a thread block: the
// lanes of a warp that want one take them with a single atomic, in lane
// order, up to `end` (past it, ~0: none left). Every lane of the warp calls
// it together.
struct WarpTickets {
  uint32_t* counter;
  uint32_t end;
  __device__ __forceinline__ uint32_t operator()(bool need) const {
    const uint32_t mask = __ballot_sync(0xFFFFFFFFu, need);
    if (mask == 0) return 0;
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t leader = static_cast<uint32_t>(__ffs(mask)) - 1u;
    uint32_t base = 0;
    if (lane == leader) base = atomicAdd(counter, static_cast<uint32_t>(__popc(mask)));
    base = __shfl_sync(0xFFFFFFFFu, base, leader);
    const uint32_t i = base + static_cast<uint32_t>(__popc(mask & ((1u << lane) - 1u)));
    return i < end ? i : ~0u;
  }
};

// The first N lanes of a thread block, for copies shared among them
// (decoder/sequence_execution.hpp's group_copy_disjoint: rank() and kSize
// only).
template <uint32_t N>
struct LaneGroup {
  static constexpr uint32_t kSize = N;
  uint32_t lane;
  __device__ __forceinline__ uint32_t rank() const { return lane; }
};

}  // namespace zarrgpu::zstd::gpu
