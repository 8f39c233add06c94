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
  // The most scratch any chunk of a batch needs (the decoder's ChunkNeeds),
  // measured on the host from the stored bytes that are copied to the
  // device; unknown (GDS reads), the decoder lays out the worst case.
  struct Needs {
    bool known = false;
    std::uint64_t literal_bytes = 0, sequences = 0;
    // A batch's needs: start from {true} and add each chunk's.
    void add(const Needs& chunk);
  };
  static bool available();
  // Needs of the chunk stored in src[0, size) (host memory).
  static Needs measure(const std::byte* src, std::size_t size, std::size_t max_decoded_bytes);
  static std::size_t temp_bytes(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t temp_budget,
                                const Needs& needs);
  // Whether temp_budget holds the worst case of `chunks` chunks in one wave.
  static bool whole_batch_fits(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t temp_budget);
  // Device arrays of n entries; statuses are uint32 (0 = ok). max_decoded_bytes
  // and temp_budget as given to temp_bytes().
  static void decompress(const void* const* in_ptrs, const std::size_t* in_sizes, void* const* out_ptrs,
                         const std::size_t* out_capacities, std::size_t* out_sizes, std::uint32_t* statuses,
                         std::size_t n, std::size_t max_decoded_bytes, std::size_t temp_budget, void* temp,
                         std::size_t temp_bytes, const Needs& needs, bool verify_checksum, cudaStream_t stream);
  static std::string status_name(std::uint32_t status);
};

}  // namespace zarrgpu::engine::device_read
