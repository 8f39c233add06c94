// The seam to the batched GPU zstd decoder (src/codec/bytes_to_bytes/zstd/gpu).
// When that decoder is not in the tree, available() is false and zstd chains
// decode on CPU threads (DeviceChain::Mode::cpu_bytes). Whether a batch uses
// it is decided per batch (decoder_choice.hpp, ZARRGPU_GPU_ZSTD=0|1|auto).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

namespace zarrgpu::engine::device_read {

// The decoder picks its strategy per batch (one warp per frame, or a frame's
// blocks in parallel for few large frames); `temp_budget` bounds the
// block-parallel scratch (~5x the decoded bytes of the chunks of one wave),
// and a batch that needs more is decoded in several waves.
struct GpuZstd {
  static bool available();
  static std::size_t temp_bytes(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t temp_budget);
  // Device arrays of n entries; statuses are uint32 (0 = ok). max_decoded_bytes
  // and temp_budget as given to temp_bytes().
  static void decompress(const void* const* in_ptrs, const std::size_t* in_sizes, void* const* out_ptrs,
                         const std::size_t* out_capacities, std::size_t* out_sizes, std::uint32_t* statuses,
                         std::size_t n, std::size_t max_decoded_bytes, std::size_t temp_budget, void* temp,
                         std::size_t temp_bytes, bool verify_checksum, cudaStream_t stream);
  static std::string status_name(std::uint32_t status);
};

}  // namespace zarrgpu::engine::device_read
