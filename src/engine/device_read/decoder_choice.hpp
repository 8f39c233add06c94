// Where a batch's zstd frames decode: the batched GPU decoder or CPU threads
// (libzstd into the pinned slot, then the one host-to-device copy per batch).
// Host code (no CUDA), so CI tests it.
//
// STOP-GAP. Today's GPU decoder gives one warp to one frame and decodes the
// frame serially, so its throughput grows with the number of frames in
// flight and a few large frames leave the GPU nearly idle (H200, 8 GB
// ERA5-like store, 481 frames of 16.6 MB, 2026 first device-read run: GPU zstd
// 1.16 GB/s, CPU zstd on 16 threads 6.22 GB/s). Once the decoder splits a
// frame's blocks across warps (intra-frame decoding, being built), this rule
// must be measured again and most likely replaced by "always GPU".
//
// The rule: GPU when the batch has at least
//     threshold = min(kFramesPerSm x SMs, kFramesPerCpuThread x CPU threads)
// frames, CPU threads otherwise.
//  - kFramesPerSm = 4: a warp decodes roughly 20 MB/s; the H200's 132 SMs
//    reach libzstd's all-core rate (~12.7 GB/s on 16 cores) only with several
//    hundred frames in flight (2048 frames of 1 MiB: 40.7 GB/s).
//  - kFramesPerCpuThread = 40 (~0.8 GB/s per core / ~20 MB/s per warp): with
//    few CPU threads the GPU pays off sooner.
// A batch below the threshold is also a small read, where the CPU's latency
// (no kernel launch, no serial warp over a whole frame) wins anyway.
//
// ZARRGPU_GPU_ZSTD overrides: 0 = always CPU threads, 1 = always GPU (when the
// decoder is built), auto (default, also empty) = the rule above.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace zarrgpu::engine::device_read {

enum class ZstdRequest { auto_, cpu, gpu };
enum class ZstdDecoder { cpu, gpu };

inline constexpr std::size_t kFramesPerSm = 4;
inline constexpr std::size_t kFramesPerCpuThread = 40;

// "0", "1", "auto", "" (auto); nullopt otherwise.
std::optional<ZstdRequest> parse_zstd_request(std::string_view s) noexcept;
// ZARRGPU_GPU_ZSTD, or auto; throws Error(invalid_argument) on an unknown value.
ZstdRequest zstd_request_from_environment();

// Frames a batch needs for the GPU decoder under `auto` (at least 1).
std::size_t gpu_zstd_frame_threshold(unsigned sm_count, unsigned cpu_threads) noexcept;

// The decoder for a batch of `frames` zstd frames. `gpu_built`: the GPU
// decoder is in this build (else always CPU).
ZstdDecoder choose_zstd_decoder(ZstdRequest request, bool gpu_built, std::size_t frames, unsigned sm_count,
                                unsigned cpu_threads) noexcept;

// One line for the statistics: the request and, under auto, the threshold.
std::string describe_zstd_choice(ZstdRequest request, bool gpu_built, unsigned sm_count, unsigned cpu_threads);

}  // namespace zarrgpu::engine::device_read
