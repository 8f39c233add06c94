// Batched Blosc 1 decompression on the GPU, zarrgpu's own: the format logic
// of ../decoder (tested on the host against c-blosc), one thread block per
// chunk and one thread per Blosc block (blocks are independent). BloscLZ and
// LZ4 streams decode here; a chunk of Zstd or zlib streams reports
// host_only_codec (its caller decodes it on the host, or with the GPU Zstd
// decoder once wired). Not on the read path yet: it has not run on a GPU.
//
// Shape of nvCOMP's batched API, as zstd/gpu/zstd_gpu.hpp; a status
// (zarrgpu::blosc::Status as uint32_t) and a decoded size per chunk, the
// status of the chunk's first failing block, as the host decoder reports.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/bytes_to_bytes/batched_gpu_result.hpp"
#include "codec/bytes_to_bytes/blosc/decoder/status.hpp"

namespace zarrgpu::blosc::gpu {

using zarrgpu::blosc::Status;
using zarrgpu::blosc::status_name;

using zarrgpu::batched_gpu::kInvalidArgument;
using zarrgpu::batched_gpu::kSuccess;
using zarrgpu::batched_gpu::Result;

// Scratch for undoing the shuffles: max_uncompressed_chunk_bytes a chunk.
Result get_decompress_temp_size(size_t num_chunks, size_t max_uncompressed_chunk_bytes, size_t* temp_bytes);

// Every pointer is to device memory, arrays of num_chunks entries; a chunk
// decodes into at most min(its capacity, max_uncompressed_chunk_bytes)
// bytes; `stream` is a cudaStream_t. Returns the launch's CUDA error, or
// kInvalidArgument (temp smaller than asked for, null arrays).
Result decompress_async(const void* const* d_in_ptrs, const size_t* d_in_sizes, void* const* d_out_ptrs,
                        const size_t* d_out_capacities, size_t* d_out_sizes, uint32_t* d_statuses, size_t num_chunks,
                        size_t max_uncompressed_chunk_bytes, void* d_temp, size_t temp_bytes, void* stream);

}  // namespace zarrgpu::blosc::gpu
