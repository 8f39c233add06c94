// When `numcodecs.lz4` chunks decode with the batched GPU LZ4 decoder rather
// than liblz4 on CPU threads: Lz4DeviceDecoder's choice(), prefers_device()
// and describe_choice() (codec/device_decoder.hpp). Host code (no CUDA), so
// CI tests it.
//
// The GPU decoder gives each chunk one thread (gpu/lz4_gpu.hpp): an LZ4
// block is one serial stream of sequences. One GPU thread decodes at a small
// fraction of a CPU core's liblz4 rate, so the GPU pays only with many
// chunks in flight. The rule: GPU when the batch has at least
//     threshold = min(kChunksPerSm x SMs, kChunksPerCpuThread x CPU threads)
// chunks, CPU threads otherwise. The constants are estimates (16 threads an
// SM keep its memory pipes busy; ~128 GPU threads match one core), to be
// replaced by what `bench/gpu/run.sh codecs` measures; a store of few large
// chunks (the ERA5-like one) stays on CPU threads under auto.
//
// Config::lz4_decoder (ZARRGPU_GPU_LZ4) overrides: cpu = always CPU threads,
// gpu = always GPU, auto (default) = the rule above.
#pragma once

#include <cstddef>
#include <string>

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec::lz4_device {

inline constexpr std::size_t kChunksPerSm = 16;
inline constexpr std::size_t kChunksPerCpuThread = 128;

// Chunks a batch needs for the GPU decoder under `auto` (at least 1).
std::size_t chunk_threshold(const DecodeResources& with) noexcept;

// Under `auto`: whether a batch of `chunks` present chunks goes to the GPU.
bool prefers_gpu(std::size_t chunks, const DecodeResources& with) noexcept;

// One line for the read's report: the choice and, under auto, the rule.
std::string describe(DecoderChoice choice, const DecodeResources& with);

}  // namespace zarrgpu::codec::lz4_device
