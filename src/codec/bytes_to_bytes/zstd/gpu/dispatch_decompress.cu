// Launch code of the batched decoder (CUB's "dispatch"): checks arguments,
// picks the policy, enqueues the kernel on the caller's stream.
#include <cuda_runtime.h>

#include "codec/bytes_to_bytes/zstd/gpu/kernel_decompress.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/policy.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"

namespace zarrgpu::zstd::gpu {

namespace {
using Policy = DecompressPolicySm90;
constexpr size_t kTempBytes = 256;  // reserved; the current kernel uses none
}  // namespace

Result get_decompress_temp_size(size_t num_chunks, size_t /*max_uncompressed_chunk_bytes*/, size_t* temp_bytes) {
  if (temp_bytes == nullptr) return kInvalidArgument;
  *temp_bytes = num_chunks == 0 ? 0 : kTempBytes;
  return kSuccess;
}

Result decompress_async(const void* const* d_in_ptrs, const size_t* d_in_sizes, void* const* d_out_ptrs,
                        const size_t* d_out_capacities, size_t* d_out_sizes, Status* d_statuses, size_t num_chunks,
                        void* d_temp, size_t temp_bytes, const DecompressOptions& options, void* stream) {
  if (num_chunks == 0) return kSuccess;
  if (!d_in_ptrs || !d_in_sizes || !d_out_ptrs || !d_out_capacities || !d_out_sizes || !d_statuses) {
    return kInvalidArgument;
  }
  if (temp_bytes < kTempBytes || d_temp == nullptr) return kInvalidArgument;
  const size_t blocks = (num_chunks + Policy::kWarpsPerBlock - 1) / Policy::kWarpsPerBlock;
  if (blocks > 0x7FFFFFFFull) return kInvalidArgument;
  const DecompressParams params{d_in_ptrs, d_in_sizes, d_out_ptrs, d_out_capacities, d_out_sizes,
                                d_statuses, num_chunks, options.verify_checksum};
  decompress_kernel<Policy><<<static_cast<unsigned>(blocks), Policy::kThreads, 0,
                              static_cast<cudaStream_t>(stream)>>>(params);
  return static_cast<Result>(cudaGetLastError());
}

bool device_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

}  // namespace zarrgpu::zstd::gpu
