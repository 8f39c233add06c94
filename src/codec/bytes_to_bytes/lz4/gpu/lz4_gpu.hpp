// Batched LZ4 block decompression on the GPU, zarrgpu's own: the format
// logic of ../decoder (tested on the host against liblz4), one GPU thread per
// chunk. Not on the read path yet: it has not run on a GPU.
//
// Shape of nvCOMP's batched API, as zstd/gpu/zstd_gpu.hpp: N chunks given as
// device arrays of pointers and sizes; everything is enqueued on the
// caller's CUDA stream; no host synchronisation, no allocation inside; a
// status (zarrgpu::lz4::Status as uint32_t) and a decoded size per chunk.
// Plain C++: no CUDA header needed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/bytes_to_bytes/batched_gpu_result.hpp"
#include "codec/bytes_to_bytes/lz4/decoder/status.hpp"

namespace zarrgpu::lz4::gpu {

using zarrgpu::lz4::Status;
using zarrgpu::lz4::status_name;

// What a chunk holds: one raw LZ4 block, or numcodecs' lz4 chunk (4-byte
// little-endian size, then the block).
enum class Framing : uint8_t { raw_block = 0, numcodecs = 1 };

using zarrgpu::batched_gpu::kInvalidArgument;
using zarrgpu::batched_gpu::kSuccess;
using zarrgpu::batched_gpu::Result;

// The decoder needs no scratch: always 0 (kept for the batched API's shape).
Result get_decompress_temp_size(size_t num_chunks, size_t max_uncompressed_chunk_bytes, size_t* temp_bytes);

// Every pointer is to device memory, arrays of num_chunks entries; `stream`
// is a cudaStream_t. Returns the launch's CUDA error, or kInvalidArgument.
Result decompress_async(const void* const* d_in_ptrs, const size_t* d_in_sizes, void* const* d_out_ptrs,
                        const size_t* d_out_capacities, size_t* d_out_sizes, uint32_t* d_statuses, size_t num_chunks,
                        Framing framing, void* stream);

}  // namespace zarrgpu::lz4::gpu
