// Kernel and launch of the batched LZ4 decoder (lz4_gpu.hpp): a thin kernel
// over the host/device format logic, one thread per chunk.
#include <cuda_runtime.h>

#include "codec/bytes_to_bytes/lz4/decoder/numcodecs_frame.hpp"
#include "codec/bytes_to_bytes/lz4/gpu/lz4_gpu.hpp"

namespace zarrgpu::lz4::gpu {
namespace {

constexpr unsigned kThreadsPerBlock = 128;
constexpr size_t kMaxGridBlocks = 65535;

__global__ void decompress_kernel(const void* const* in_ptrs, const size_t* in_sizes, void* const* out_ptrs,
                                  const size_t* out_capacities, size_t* out_sizes, uint32_t* statuses,
                                  size_t num_chunks, Framing framing) {
  for (size_t c = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; c < num_chunks;
       c += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const auto* src = static_cast<const uint8_t*>(in_ptrs[c]);
    auto* dst = static_cast<uint8_t*>(out_ptrs[c]);
    size_t n = 0;
    const Status st = framing == Framing::numcodecs
                          ? decode_numcodecs_frame(src, in_sizes[c], dst, out_capacities[c], &n)
                          : decode_block(src, in_sizes[c], dst, out_capacities[c], &n);
    out_sizes[c] = n;
    statuses[c] = static_cast<uint32_t>(st);
  }
}

}  // namespace

Result get_decompress_temp_size(size_t /*num_chunks*/, size_t /*max_uncompressed_chunk_bytes*/, size_t* temp_bytes) {
  if (temp_bytes == nullptr) return kInvalidArgument;
  *temp_bytes = 0;
  return kSuccess;
}

Result decompress_async(const void* const* d_in_ptrs, const size_t* d_in_sizes, void* const* d_out_ptrs,
                        const size_t* d_out_capacities, size_t* d_out_sizes, uint32_t* d_statuses, size_t num_chunks,
                        Framing framing, void* stream) {
  if (num_chunks == 0) return kSuccess;
  if (!d_in_ptrs || !d_in_sizes || !d_out_ptrs || !d_out_capacities || !d_out_sizes || !d_statuses)
    return kInvalidArgument;
  size_t blocks = (num_chunks + kThreadsPerBlock - 1) / kThreadsPerBlock;
  if (blocks > kMaxGridBlocks) blocks = kMaxGridBlocks;
  decompress_kernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      d_in_ptrs, d_in_sizes, d_out_ptrs, d_out_capacities, d_out_sizes, d_statuses, num_chunks, framing);
  return static_cast<Result>(cudaGetLastError());
}

}  // namespace zarrgpu::lz4::gpu
