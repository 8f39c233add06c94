// When `blosc` chunks (Blosc 1 frames, v2 compressor "blosc", v3 blosc and
// numcodecs.blosc codecs) decode with the batched GPU Blosc decoder rather
// than c-blosc on CPU threads: BloscDeviceDecoder's choice(),
// prefers_device() and describe_choice() (codec/device_decoder.hpp). Host
// code (no CUDA), so CI tests it.
//
// Which frames the GPU decodes: those whose streams are BloscLZ or LZ4
// (cname blosclz, lz4, lz4hc) or stored (memcpyed), with any shuffle. A codec
// whose cname is zlib, zstd or snappy decodes on CPU threads whatever the
// setting, and the read report says why; a frame that disagrees with its
// codec's cname is handed back to CPU threads by the GPU decoder's status
// (BatchedDeviceDecoder::needs_host).
//
// The GPU decoder gives each Blosc block one thread (blocks are independent,
// gpu/blosc_gpu.hpp), so what counts is the number of blocks in flight. The
// blocks of a batch are estimated from the chunk size (the frames' headers
// are read only after the choice): c-blosc 1.21's automatic block at the
// default clevel 5 is L1 x 4 = 128 KiB, times the type size where the block
// is split into byte streams (shuffled LZ4 and BloscLZ data), capped at
// 1 MiB; kAssumedBlockBytes takes 4-byte items (float32), numcodecs' most
// common. The ERA5-like batch (26 chunks of 16.6 MB, 32 blocks each) is then
// ~830 blocks, one GPU thread each. The rule: GPU when
//     chunks x ceil(chunk bytes / kAssumedBlockBytes)
//         >= min(kBlocksPerSm x SMs, kBlocksPerCpuThread x CPU threads),
// CPU threads otherwise. The constants are estimates (16 threads an SM keep
// its memory pipes busy; ~128 GPU threads match one core's c-blosc) to be
// replaced by what `bench/gpu/run.sh codecs` measures.
//
// Config::blosc_decoder (ZARRGPU_GPU_BLOSC) overrides: cpu = always CPU
// threads, gpu = always GPU (for the cnames it decodes), auto (default) =
// the rule above.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec::blosc_device {

inline constexpr std::size_t kAssumedBlockBytes = std::size_t{512} << 10;
inline constexpr std::size_t kBlocksPerSm = 16;
inline constexpr std::size_t kBlocksPerCpuThread = 128;

// Whether the GPU decoder decodes the streams of codec `cname`.
bool gpu_decodes(std::string_view cname) noexcept;

// Blosc blocks a batch needs for the GPU decoder under `auto` (at least 1).
std::size_t block_threshold(const DecodeResources& with) noexcept;

// The blocks of `chunks` chunks of `chunk_bytes` decoded bytes, as estimated.
std::size_t estimated_blocks(std::size_t chunks, std::size_t chunk_bytes) noexcept;

// Under `auto`: whether a batch of `chunks` present chunks, each of at most
// `chunk_bytes` decoded, goes to the GPU.
bool prefers_gpu(std::size_t chunks, std::size_t chunk_bytes, const DecodeResources& with) noexcept;

// One line for the read's report: the choice and, under auto, the rule;
// `cname` the codec's inner compressor (a CPU-only one says so).
std::string describe(DecoderChoice choice, std::string_view cname, const DecodeResources& with);

}  // namespace zarrgpu::codec::blosc_device
