// Kernels of the block-parallel decoder: thin shells that map threads,
// warps and shared-memory workspaces onto AgentBlockParallel's phases.
#pragma once

#include "codec/bytes_to_bytes/zstd/gpu/agent_block_parallel.cuh"

namespace zarrgpu::zstd::gpu {

// The chunk of the wave a thread takes (one thread per chunk); false past the wave.
template <class Policy>
__device__ __forceinline__ bool thread_chunk(const BlockParallelParams& bp, size_t* c) {
  *c = static_cast<size_t>(blockIdx.x) * Policy::kWalkThreads + threadIdx.x;
  return *c < bp.wave_chunks;
}

// The block slot a warp takes (one warp per slot: chunk c of the wave, its
// block k); false past the wave's slots, for whole warps at once.
template <class Policy>
__device__ __forceinline__ bool warp_block_slot(const BlockParallelParams& bp, size_t* c, uint32_t* k) {
  const size_t slot = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + (threadIdx.x >> 5);
  if (slot >= bp.wave_chunks * bp.max_blocks) return false;
  *c = slot / bp.max_blocks;
  *k = static_cast<uint32_t>(slot % bp.max_blocks);
  return true;
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) walk_kernel(BlockParallelParams bp) {
  size_t c = 0;
  if (thread_chunk<Policy>(bp, &c)) AgentBlockParallel{bp}.walk(c);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm) sections_kernel(BlockParallelParams bp) {
  __shared__ Workspace workspaces[Policy::kWarpsPerBlock];
  size_t c = 0;
  uint32_t k = 0;
  if (warp_block_slot<Policy>(bp, &c, &k)) AgentBlockParallel{bp}.sections(workspaces[threadIdx.x >> 5], c, k);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) place_kernel(BlockParallelParams bp) {
  size_t c = 0;
  if (thread_chunk<Policy>(bp, &c)) AgentBlockParallel{bp}.place(c);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm) resolve_kernel(BlockParallelParams bp) {
  __shared__ Workspace workspaces[Policy::kWarpsPerBlock];
  size_t c = 0;
  uint32_t k = 0;
  if (warp_block_slot<Policy>(bp, &c, &k)) AgentBlockParallel{bp}.resolve(workspaces[threadIdx.x >> 5], c, k);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) verdict_kernel(BlockParallelParams bp) {
  size_t c = 0;
  if (thread_chunk<Policy>(bp, &c)) AgentBlockParallel{bp}.verdict(c);
}

// Phase D: one warp per block slot, each with a SequenceBatch of shared
// memory (not a whole Workspace): more warps per SM than the table-building
// kernels.
template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kCopyMinBlocksPerSm) literals_kernel(BlockParallelParams bp) {
  __shared__ SequenceBatch batches[Policy::kWarpsPerBlock];
  size_t c = 0;
  uint32_t k = 0;
  if (warp_block_slot<Policy>(bp, &c, &k)) AgentBlockParallel{bp}.write_literals(batches[threadIdx.x >> 5], c, k);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kCopyMinBlocksPerSm) execute_kernel(BlockParallelParams bp) {
  __shared__ SequenceBatch batches[Policy::kWarpsPerBlock];
  size_t c = 0;
  uint32_t k = 0;
  if (warp_block_slot<Policy>(bp, &c, &k)) AgentBlockParallel{bp}.execute(batches[threadIdx.x >> 5], c, k);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads) finish_kernel(BlockParallelParams bp) {
  const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + (threadIdx.x >> 5);
  if (c < bp.wave_chunks) AgentBlockParallel{bp}.finish(c);
}

}  // namespace zarrgpu::zstd::gpu
