// Kernels of the block-parallel decoder: thin shells that map threads,
// warps and shared-memory workspaces onto AgentBlockParallel's phases.
#pragma once

#include "codec/bytes_to_bytes/zstd/gpu/agent_block_parallel.cuh"

namespace zarrgpu::zstd::gpu {

template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) walk_kernel(BlockParallelParams bp) {
  const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWalkThreads + threadIdx.x;
  if (c < bp.wave_chunks) AgentBlockParallel{bp}.walk(c);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm) sections_kernel(BlockParallelParams bp) {
  __shared__ Workspace workspaces[Policy::kWarpsPerBlock];
  const uint32_t warp = threadIdx.x >> 5;
  const size_t slot = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + warp;
  if (slot >= bp.wave_chunks * bp.max_blocks) return;  // whole warps leave together
  AgentBlockParallel{bp}.sections(workspaces[warp], slot / bp.max_blocks, static_cast<uint32_t>(slot % bp.max_blocks));
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) place_kernel(BlockParallelParams bp) {
  const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWalkThreads + threadIdx.x;
  if (c < bp.wave_chunks) AgentBlockParallel{bp}.place(c);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm) resolve_kernel(BlockParallelParams bp) {
  __shared__ Workspace workspaces[Policy::kWarpsPerBlock];
  const uint32_t warp = threadIdx.x >> 5;
  const size_t slot = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + warp;
  if (slot >= bp.wave_chunks * bp.max_blocks) return;
  AgentBlockParallel{bp}.resolve(workspaces[warp], slot / bp.max_blocks, static_cast<uint32_t>(slot % bp.max_blocks));
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) verdict_kernel(BlockParallelParams bp) {
  const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWalkThreads + threadIdx.x;
  if (c < bp.wave_chunks) AgentBlockParallel{bp}.verdict(c);
}

// Phase D: one warp per block slot, each with a SequenceBatch of shared
// memory (not a whole Workspace): more warps per SM than the table-building
// kernels.
template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kCopyMinBlocksPerSm) literals_kernel(BlockParallelParams bp) {
  __shared__ SequenceBatch batches[Policy::kWarpsPerBlock];
  const uint32_t warp = threadIdx.x >> 5;
  const size_t slot = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + warp;
  if (slot >= bp.wave_chunks * bp.max_blocks) return;
  AgentBlockParallel{bp}.write_literals(batches[warp], slot / bp.max_blocks, static_cast<uint32_t>(slot % bp.max_blocks));
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kCopyMinBlocksPerSm) execute_kernel(BlockParallelParams bp) {
  __shared__ SequenceBatch batches[Policy::kWarpsPerBlock];
  const uint32_t warp = threadIdx.x >> 5;
  const size_t slot = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + warp;
  if (slot >= bp.wave_chunks * bp.max_blocks) return;
  AgentBlockParallel{bp}.execute(batches[warp], slot / bp.max_blocks, static_cast<uint32_t>(slot % bp.max_blocks));
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads) finish_kernel(BlockParallelParams bp) {
  const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + (threadIdx.x >> 5);
  if (c < bp.wave_chunks) AgentBlockParallel{bp}.finish(c);
}

}  // namespace zarrgpu::zstd::gpu
