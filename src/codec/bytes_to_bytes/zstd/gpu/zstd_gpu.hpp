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

#include "codec/bytes_to_bytes/zstd/decoder/config.hpp"

namespace zarrgpu::zstd::gpu {

// Per-chunk status values are zarrgpu::zstd::Status (decoder/config.hpp),
// written to device memory as uint32_t.
using zarrgpu::zstd::Status;
using zarrgpu::zstd::status_name;

// How a batch is decoded.
//  one_warp:       one warp per chunk, blocks in order (kernel_decompress.cuh).
//  block_parallel: a frame's blocks in parallel (walk, per-block entropy
//                  decoding, offset resolution, execution: decoder/frame_walk.hpp
//                  ff.) — scratch of ~5x the chunk bound per chunk of a wave.
//  automatic:      block_parallel for chunks of two blocks or more
//                  (use_block_parallel()), else one_warp.
// block_parallel needs max_uncompressed_chunk_bytes (else one_warp runs) and
// a temp size asked with the same options. ZARRGPU_ZSTD_BLOCK_PARALLEL=1|0
// overrides `automatic` (1: always, 0: never).
enum class Strategy : uint8_t { automatic = 0, one_warp = 1, block_parallel = 2 };

// Block parallel: how match copy (the matches) runs.
//  by_block:  every compressed block at once, matches that read earlier
//             blocks followed back through them (cross-block match copy, then in-block match copy; in stages
//             on long blocks).
//  by_chunk:  a warp per chunk, its blocks' matches in order: no walks, a
//             serial chain of batches per chunk; where the blocks are long
//             and their literal runs short (level 19), each batch's
//             literals too, in place of literal copy's own pass.
//  automatic: by_chunk where the chunks are at most 1 MiB
//             (BlockParallelPolicySm90::kMatchesByChunk*), else by_block.
// ZARRGPU_ZSTD_MATCHES_BY_CHUNK=1|0 overrides `automatic`, for comparisons.
enum class MatchMode : uint8_t { automatic = 0, by_block = 1, by_chunk = 2 };

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
  // Block parallel: run each wave's light and heavy chunks (by sequence
  // count) side by side on the caller's stream and a second one
  // (dispatch_decompress.cu); and a batch of chunks up to 1 MiB that needs
  // several waves runs them on two lanes (the caller's stream and one of
  // the decoder's), each with half the temp. A caller that keeps several
  // batches in flight on streams of its own overlaps them already and may
  // do better without.
  // ZARRGPU_ZSTD_CLASSES=1 turns both off, ZARRGPU_ZSTD_WAVE_LANES=1 the
  // lanes only, for comparisons.
  bool weight_classes = true;
  // Block parallel: match copy in this many stages by output position, at
  // most BlockParallelPolicySm90::kMaxMatchStages (0: by the policy's rule on
  // the chunk size and the wave's blocks; the environment's
  // ZARRGPU_ZSTD_MATCH_STAGES, when set, for comparisons). Any count decodes
  // the same bytes; stages shorten the walks of matches that read earlier
  // blocks (decoder/block_execution.hpp's MatchStages).
  uint32_t match_stages = 0;
  // Block parallel: match copy by block or by chunk (MatchMode above). Either
  // decodes the same bytes.
  MatchMode match_mode = MatchMode::automatic;
};

// Whether decompress_async and get_decompress_temp_size run the
// block-parallel path for num_chunks chunks with these options. Under
// `automatic`: a chunk bound of at least kBlockParallelMinChunkBytes,
// however many chunks, one-block chunks included.
// H200, ERA5-like float32, GB/s one warp / block parallel, same run, after
// the per-block kernels went over the list of blocks rather than every
// block slot (5ec2506; zstd_gpu_bench --gib 0.5 --gib-l19 0.25, 2026-11-22
// 15:33 UTC):
//   16 KiB: level 1 86.1 / 91.7, level 3 77.2 / 84.1, level 9 67.8 / 76.2, level 19 26.2 / 37.3
//   32 KiB: level 1 99.2 / 117.3, level 3 89.6 / 110.7, level 9 71.3 / 91.9, level 19 21.9 / 32.9
//   64 KiB: level 1 96.5 / 115.1, level 3 85.0 / 106.9, level 9 61.8 / 88.2, level 19 16.3 / 25.3
// and from 256 KiB block parallel is ahead by 1.2x (level 1 256 KiB) to
// 14x (level 19 4 MiB) (bench/results/zstd_gpu.md, ebf2d74). Below 16 KiB
// nothing was measured: the
// one-warp kernel keeps those. (Until 5ec2506 a chunk's empty block slots
// cost a warp each in five kernels: one-block chunks went to the one-warp
// kernel and the rule started at 256 KiB; before the cross-block step took
// its sequences from a shared counter, at 512 KiB.)
inline constexpr uint64_t kBlockParallelMinChunkBytes = uint64_t{16} << 10;
bool use_block_parallel(size_t num_chunks, const DecompressOptions& options);

// Return value of the host calls: 0 on success, else a cudaError_t value
// (or kInvalidArgument for bad arguments detected before any launch).
using Result = int;
inline constexpr Result kSuccess = 0;
inline constexpr Result kInvalidArgument = 1;  // == cudaErrorInvalidValue

// Scratch bytes decompress_async needs for this many chunks. The one-warp
// decoder keeps its tables in shared memory and decodes Huffman literals in
// place in the output, so it needs a small constant; callers must still ask.
Result get_decompress_temp_size(size_t num_chunks, size_t max_uncompressed_chunk_bytes, size_t* temp_bytes);
// The same for the given options: the block-parallel path needs scratch of
// ~5.8-6.7x max_uncompressed_chunk_bytes per chunk of a wave (at most
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

// True when the CUDA path was built and a device is visible.
bool device_available();

}  // namespace zarrgpu::zstd::gpu
