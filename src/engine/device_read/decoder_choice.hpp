// Where a batch's zstd frames decode: the batched GPU decoder or CPU threads
// (libzstd into the pinned slot, then the one host-to-device copy per batch).
// Host code (no CUDA), so CI tests it.
//
// The GPU decoder has two strategies (codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp):
// one warp per frame, whose throughput grows with the number of frames in
// flight, and a frame's blocks in parallel, which it picks by itself for
// few frames of several blocks. The rule: GPU when the batch has at least
//     threshold = min(kFramesPerSm x SMs, kFramesPerCpuThread x CPU threads)
// frames, CPU threads otherwise.
//  - kFramesPerSm = 4: a warp decodes roughly 20 MB/s; the H200's 132 SMs
//    reach libzstd's all-core rate (~12.7 GB/s on 16 cores) only with
//    several hundred frames in flight.
//  - kFramesPerCpuThread = 40 (~0.8 GB/s per core / ~20 MB/s per warp):
//    with few CPU threads the GPU pays off sooner.
// A small batch is also a small read, where the CPU's latency wins anyway.
//
// Batches of large frames (a chunk bound of at least kLargeFrameBytes, at
// or above the GPU decoder's kBlockParallelMinChunkBytes: it decodes a
// frame's blocks in parallel) go to the GPU in any number. Measured on the CLI's ERA5-like
// store (481 frames of 16.6 MB, zstd-3, H200, 16 cores, 2026-11-21, warm,
// GB/s; bench/results/gpu_read.md): GPU only 9.33, CPU threads only 4.53.
// Sharing the batches did worse: GPU when idle, else CPU threads, 7.86;
// GPU until two batches queue there, 8.08. A CPU batch keeps the host from
// fetching the GPU's next batches, and the GPU, twice as fast, waits.
//
// Config::zstd_decoder (ZARRGPU_GPU_ZSTD) overrides: cpu = always CPU threads,
// gpu = always GPU (when the decoder is built), auto (default) = the rule above.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "zarrgpu/config.hpp"

namespace zarrgpu::engine::device_read {

using ZstdRequest = DecoderChoice;
enum class ZstdDecoder { cpu, gpu };

inline constexpr std::size_t kFramesPerSm = 4;
inline constexpr std::size_t kFramesPerCpuThread = 40;
inline constexpr std::size_t kLargeFrameBytes = std::size_t{512} << 10;

// The GPU decoder's scratch for a batch, at most this many times the read's
// decoded scratch (StagingConfig::scratch_bytes): the decoder asks ~5.8x a
// large frame (its triples alone are 4x, offset resolution's checkpoints 0.33x), so a full
// batch of them decodes in one wave. At 4x a batch of 26 frames of 16.6 MB
// ran as two waves of 13 and the 8 GB read at 12.1 GB/s; in one wave at
// 14.3 (H200, bench/gpu/read_sweep.sh). decoder_choice_test.cpp checks
// that a full batch of the CLI store's frames is one wave.
inline constexpr std::size_t kGpuZstdTempPerScratch = 6;

// The request in force: config().zstd_decoder.
ZstdRequest zstd_request();

// Frames a batch needs for the GPU decoder under `auto` (at least 1).
std::size_t gpu_zstd_frame_threshold(unsigned sm_count, unsigned cpu_threads) noexcept;

// A batch as the rule sees it.
struct ZstdBatch {
  std::size_t frames = 0;       // zstd frames (chunks present)
  std::size_t frame_bytes = 0;  // the chunk's decoded size: each frame's bound
};

// The decoder for a batch. `gpu_built`: the GPU decoder is in this build
// (else always CPU).
ZstdDecoder choose_zstd_decoder(ZstdRequest request, bool gpu_built, const ZstdBatch& batch, unsigned sm_count,
                                unsigned cpu_threads) noexcept;

// One line for the statistics: the request and, under auto, the threshold.
std::string describe_zstd_choice(ZstdRequest request, bool gpu_built, unsigned sm_count, unsigned cpu_threads);

}  // namespace zarrgpu::engine::device_read
