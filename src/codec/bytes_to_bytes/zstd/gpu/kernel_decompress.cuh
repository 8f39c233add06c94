// The kernel: a thin shell that gives each warp its workspace in shared
// memory and its chunk.
#pragma once

#include "codec/bytes_to_bytes/zstd/gpu/agent_decompress.cuh"

namespace zarrgpu::zstd::gpu {

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm)
    decompress_kernel(DecompressParams params) {
  __shared__ Workspace workspaces[Policy::kWarpsPerBlock];
  const uint32_t warp = threadIdx.x >> 5;
  const size_t local = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + warp;
  if (local >= params.num_chunks) return;  // whole warps leave together
  AgentDecompress{workspaces[warp], params}.decode(local);
}

}  // namespace zarrgpu::zstd::gpu
