// When the `zstd` codec's frames decode with its batched GPU decoder rather
// than libzstd on CPU threads (into the pinned slot, then the one
// host-to-device copy per batch): ZstdDeviceDecoder's choice(),
// prefers_device() and describe_choice() (codec/device_decoder.hpp). Host
// code (no CUDA), so CI tests it.
//
// The GPU decoder has two strategies (gpu/zstd_gpu.hpp): one warp per frame,
// whose throughput grows with the number of frames in flight, and a frame's
// blocks in parallel, which it picks by itself for few frames of several
// blocks. The rule: GPU when the batch has at least
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
// gpu = always GPU, auto (default) = the rule above.
#pragma once

#include <cstddef>
#include <string>

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec::zstd_device {

inline constexpr std::size_t kFramesPerSm = 4;
inline constexpr std::size_t kFramesPerCpuThread = 40;
inline constexpr std::size_t kLargeFrameBytes = std::size_t{512} << 10;

// The GPU decoder's scratch for a batch, at most this many times the read's
// decoded scratch (StagingConfig::scratch_bytes): the decoder asks ~5.8x a
// large frame (its triples alone are 4x, offset resolution's checkpoints 0.33x), so a full
// batch of them decodes in one wave. At 4x a batch of 26 frames of 16.6 MB
// ran as two waves of 13 and the 8 GB read at 12.1 GB/s; in one wave at
// 14.3 (H200, bench/gpu/read_sweep.sh). zstd_device_choice_test.cpp checks
// that a full batch of the CLI store's frames is one wave.
inline constexpr std::size_t kTempPerScratch = 6;

// Frames a batch needs for the GPU decoder under `auto` (at least 1).
std::size_t frame_threshold(const DecodeResources& with) noexcept;

// Under `auto`: whether a batch of `frames` present frames, each of at most
// `frame_bytes` decoded, goes to the GPU.
bool prefers_gpu(std::size_t frames, std::size_t frame_bytes, const DecodeResources& with) noexcept;

// One line for the read's report: the choice and, under auto, the rule.
std::string describe(DecoderChoice choice, const DecodeResources& with);

}  // namespace zarrgpu::codec::zstd_device
