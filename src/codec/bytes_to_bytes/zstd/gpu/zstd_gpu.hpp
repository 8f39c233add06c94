// Batched Zstandard decompression on the GPU (RFC 8878), zarrgpu's own.
//
// Shape of nvCOMP's batched API, our names: N chunks given as device arrays
// of pointers and sizes; everything is enqueued on the caller's CUDA stream;
// no host synchronisation, no allocation inside (CUDA-graph capturable); a
// status and a decoded size per chunk. Plain C++: no CUDA header needed.
//
//   size_t temp = 0;
//   get_decompress_temp_size(n, max_chunk_bytes, &temp);        // once
//   decompress_async(d_in, d_in_sizes, d_out, d_out_caps, d_out_sizes,
//                    d_statuses, n, d_temp, temp, {}, stream);  // per batch
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/bytes_to_bytes/batched_gpu_result.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/config.hpp"

namespace zarrgpu::zstd::gpu {

// Per-chunk status values are zarrgpu::zstd::Status (decoder/config.hpp),
// written to device memory as uint32_t.
using zarrgpu::zstd::Status;
using zarrgpu::zstd::status_name;

// What one chunk takes of a wave's scratch beyond its records: Huffman
// literal bytes and sequences (the walk's ChunkPlan::literals_bytes and
// ::triples). Unknown, both are bounded by the chunk's decoded size: every
// byte a literal, a sequence per 3 bytes (a match is >= 3 bytes), ~5.7x the
// chunk with the rest. Measured on the host from the chunk's own frames
// (measure_chunk_needs), they are what the data needs: ~1.9x the chunk in
// all for float32 fields at level 3 (docs/zstd-gpu-decoder.md).
struct ChunkNeeds {
  uint64_t literal_bytes = 0;
  uint64_t sequences = 0;
};

// How a batch is decoded.
//  one_warp:       one warp per chunk, blocks in order (kernel_decompress.cuh).
//  block_parallel: a frame's blocks in parallel (walk, per-block entropy
//                  decoding, offset resolution, execution: decoder/frame_walk.hpp
//                  ff.) — scratch of ~5x the chunk bound per chunk of a wave.
//  automatic:      block_parallel for chunk bounds of at least
//                  kBlockParallelMinChunkBytes (use_block_parallel()), else one_warp.
// block_parallel needs max_uncompressed_chunk_bytes (else one_warp runs) and
// a temp size asked with the same options.
enum class Strategy : uint8_t { automatic = 0, one_warp = 1, block_parallel = 2 };

struct DecompressOptions {
  bool verify_checksum = true;  // check Content_Checksum (XXH64) where frames carry one
  Strategy strategy = Strategy::automatic;
  // The value given to get_decompress_temp_size; the block-parallel path
  // lays out its scratch with it (chunks that decode to more fall back).
  size_t max_uncompressed_chunk_bytes = 0;
  // Block-parallel scratch of one wave of chunks (0: 16 GiB for chunk
  // bounds over 256 KiB, else 8 GiB: gpu/policy.cuh's kWaveTempBytes); a batch that needs more is
  // decoded wave after wave.
  // Bounds get_decompress_temp_size.
  size_t wave_temp_bytes = 0;
  // Block parallel: a wave's chunks with many sequences and those with few
  // run their later phases side by side on the caller's stream and a second
  // one, and a batch of several waves may alternate them on two streams
  // (docs/zstd-gpu-decoder.md). A caller that keeps several batches in
  // flight on streams of its own overlaps them already and may do better
  // without (the read path does).
  bool weight_classes = true;
  // The most any chunk of the batch needs (measure_chunk_needs over each,
  // the largest of each field), when the caller knows it: the block-parallel
  // scratch is then laid out for that, not for the worst case of
  // max_uncompressed_chunk_bytes, and a wave holds ~3x the chunks of such
  // data. A chunk that needs more than said decodes on the one-warp path
  // (correct, slower). Give get_decompress_temp_size the same options.
  bool chunk_needs_known = false;
  ChunkNeeds chunk_needs;
};

// Whether decompress_async and get_decompress_temp_size run the
// block-parallel path for num_chunks chunks with these options. Under
// `automatic`: a chunk bound of at least kBlockParallelMinChunkBytes,
// however many chunks, one-block chunks included.
// Measured from 16 KiB up: bench/results/zstd_gpu_history.md, v13.
inline constexpr uint64_t kBlockParallelMinChunkBytes = uint64_t{16} << 10;
bool use_block_parallel(size_t num_chunks, const DecompressOptions& options);

using zarrgpu::batched_gpu::kInvalidArgument;
using zarrgpu::batched_gpu::kSuccess;
using zarrgpu::batched_gpu::Result;

// Scratch bytes decompress_async needs for this many chunks. The one-warp
// decoder keeps its tables in shared memory and decodes Huffman literals in
// place in the output, so it needs a small constant; callers must still ask.
Result get_decompress_temp_size(size_t num_chunks, size_t max_uncompressed_chunk_bytes, size_t* temp_bytes);
// The same for the given options: the block-parallel path needs scratch of
// ~5.8-6.7x max_uncompressed_chunk_bytes per chunk of a wave (less for
// DecompressOptions::chunk_needs) (at most
// DecompressOptions::wave_temp_bytes a wave; a larger batch is decoded
// wave after wave).
Result get_decompress_temp_size(size_t num_chunks, size_t max_uncompressed_chunk_bytes,
                                const DecompressOptions& options, size_t* temp_bytes);

// Decodes chunk i from d_in_ptrs[i][0, d_in_sizes[i]) into
// d_out_ptrs[i][0, d_out_capacities[i]). Each chunk may hold several
// Zstandard and skippable frames. Writes d_out_sizes[i] (0 on error) and
// d_statuses[i]. Bytes past the decoded size but inside the capacity may be
// overwritten. All pointers are device pointers; stream is a cudaStream_t.
Result decompress_async(const void* const* d_in_ptrs, const size_t* d_in_sizes, void* const* d_out_ptrs,
                        const size_t* d_out_capacities, size_t* d_out_sizes, Status* d_statuses, size_t num_chunks,
                        void* d_temp, size_t temp_bytes, const DecompressOptions& options, void* stream);

// What chunk src[0, size) needs of the block-parallel scratch, from its
// frame and block headers on the host (the walk the decoder runs on the
// device); host pointer, any bytes (never reads past src + size).
ChunkNeeds measure_chunk_needs(const void* src, size_t size, size_t max_uncompressed_chunk_bytes);

// True when the CUDA path was built and a device is visible.
bool device_available();

}  // namespace zarrgpu::zstd::gpu
