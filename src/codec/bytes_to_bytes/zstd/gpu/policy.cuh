// Tuning of the batched decoder (CUB's "policy"): how many warps, each
// decoding one chunk, share a thread block, and the occupancy asked of ptxas.
#pragma once

#include "codec/bytes_to_bytes/zstd/decoder/workspace.hpp"

namespace zarrgpu::zstd::gpu {

struct DecompressPolicySm90 {
  static constexpr int kWarpsPerBlock = 4;
  static constexpr int kThreads = kWarpsPerBlock * 32;
  // Shared memory allows 5 blocks of 4 workspaces per SM (20 warps); ask
  // ptxas for the registers to match (<= 102 per thread).
  static constexpr int kMinBlocksPerSm = 5;
  static_assert(kWarpsPerBlock * sizeof(Workspace) <= 48 * 1024, "static shared memory limit");
};

}  // namespace zarrgpu::zstd::gpu
