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

// One warp per block slot; which block a warp runs comes from the ticket
// counter, not from its index (see AgentBlockParallel::execute).
template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm) execute_kernel(BlockParallelParams bp) {
  __shared__ Workspace workspaces[Policy::kWarpsPerBlock];
  AgentBlockParallel{bp}.execute(workspaces[threadIdx.x >> 5]);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads) finish_kernel(BlockParallelParams bp) {
  const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + (threadIdx.x >> 5);
  if (c < bp.wave_chunks) AgentBlockParallel{bp}.finish(c);
}

}  // namespace zarrgpu::zstd::gpu
