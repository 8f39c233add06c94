// Kernel and launch of the batched Blosc 1 decoder (blosc_gpu.hpp): one
// thread block per chunk, its threads striding over the chunk's Blosc blocks
// with the host/device format logic of ../decoder.
#include <cuda_runtime.h>

#include "codec/bytes_to_bytes/blosc/decoder/block.hpp"
#include "codec/bytes_to_bytes/blosc/gpu/blosc_gpu.hpp"

namespace zarrgpu::blosc::gpu {
namespace {

constexpr unsigned kThreadsPerBlock = 128;
constexpr size_t kMaxGridBlocks = 65535;
constexpr unsigned long long kNoFailure = ~0ull;

__global__ void decompress_kernel(const void* const* in_ptrs, const size_t* in_sizes, void* const* out_ptrs,
                                  const size_t* out_capacities, size_t* out_sizes, uint32_t* statuses,
                                  size_t num_chunks, size_t max_chunk_bytes, uint8_t* scratch) {
  // The first failing block's (index << 32 | status): the smallest index wins,
  // so the chunk's status is the host decoder's, whatever the thread order.
  __shared__ unsigned long long first_failure;
  for (size_t c = blockIdx.x; c < num_chunks; c += gridDim.x) {  // uniform across the thread block
    const auto* src = static_cast<const uint8_t*>(in_ptrs[c]);
    auto* dst = static_cast<uint8_t*>(out_ptrs[c]);
    const size_t capacity = out_capacities[c] < max_chunk_bytes ? out_capacities[c] : max_chunk_bytes;
    ChunkHeader h;
    Status st = dst == nullptr && capacity != 0 ? Status::invalid_argument
                                                : parse_chunk_header(src, in_sizes[c], capacity, &h);
    if (threadIdx.x == 0) first_failure = kNoFailure;
    __syncthreads();
    if (st == Status::ok && h.nbytes != 0) {
      uint8_t* chunk_scratch = scratch + c * max_chunk_bytes;
      const uint32_t blocks = h.block_count();
      for (uint32_t b = threadIdx.x; b < blocks; b += blockDim.x) {
        uint32_t inner = 0;
        // Block b's scratch is where its bytes go in the chunk: inside nbytes <= max_chunk_bytes.
        const Status bs = decode_block(h, src, b, dst, chunk_scratch + static_cast<size_t>(b) * h.blocksize,
                                       DeviceStreamDecoder{}, &inner);
        if (bs != Status::ok)
          atomicMin(&first_failure, (static_cast<unsigned long long>(b) << 32) | static_cast<uint32_t>(bs));
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      if (st == Status::ok && first_failure != kNoFailure) st = static_cast<Status>(first_failure & 0xFFFFFFFFu);
      statuses[c] = static_cast<uint32_t>(st);
      out_sizes[c] = st == Status::ok ? h.nbytes : 0;
    }
    __syncthreads();  // first_failure is reset for the next chunk only after it is read
  }
}

}  // namespace

Result get_decompress_temp_size(size_t num_chunks, size_t max_uncompressed_chunk_bytes, size_t* temp_bytes) {
  if (temp_bytes == nullptr) return kInvalidArgument;
  *temp_bytes = num_chunks * max_uncompressed_chunk_bytes;
  return kSuccess;
}

Result decompress_async(const void* const* d_in_ptrs, const size_t* d_in_sizes, void* const* d_out_ptrs,
                        const size_t* d_out_capacities, size_t* d_out_sizes, uint32_t* d_statuses, size_t num_chunks,
                        size_t max_uncompressed_chunk_bytes, void* d_temp, size_t temp_bytes, void* stream) {
  if (num_chunks == 0) return kSuccess;
  if (!d_in_ptrs || !d_in_sizes || !d_out_ptrs || !d_out_capacities || !d_out_sizes || !d_statuses)
    return kInvalidArgument;
  size_t needed = 0;
  get_decompress_temp_size(num_chunks, max_uncompressed_chunk_bytes, &needed);
  if (temp_bytes < needed || (needed != 0 && d_temp == nullptr)) return kInvalidArgument;
  const size_t blocks = num_chunks < kMaxGridBlocks ? num_chunks : kMaxGridBlocks;
  decompress_kernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      d_in_ptrs, d_in_sizes, d_out_ptrs, d_out_capacities, d_out_sizes, d_statuses, num_chunks,
      max_uncompressed_chunk_bytes, static_cast<uint8_t*>(d_temp));
  return static_cast<Result>(cudaGetLastError());
}

}  // namespace zarrgpu::blosc::gpu
