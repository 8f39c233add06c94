#include "engine/device_read/decoder_choice.hpp"

#include <algorithm>

#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine::device_read {

// Batches of large frames go to the GPU whatever their number because the
// decoder splits such frames into blocks.
static_assert(kLargeFrameBytes >= zstd::gpu::kBlockParallelMinChunkBytes);

ZstdRequest zstd_request() { return config().zstd_decoder; }

std::size_t gpu_zstd_frame_threshold(unsigned sm_count, unsigned cpu_threads) noexcept {
  const std::size_t by_gpu = kFramesPerSm * std::max(1u, sm_count);
  const std::size_t by_cpu = kFramesPerCpuThread * std::max(1u, cpu_threads);
  return std::max<std::size_t>(1, std::min(by_gpu, by_cpu));
}

ZstdDecoder choose_zstd_decoder(ZstdRequest request, bool gpu_built, const ZstdBatch& batch, unsigned sm_count,
                                unsigned cpu_threads) noexcept {
  if (!gpu_built || request == ZstdRequest::cpu) return ZstdDecoder::cpu;
  if (request == ZstdRequest::gpu) return ZstdDecoder::gpu;
  if (batch.frames >= gpu_zstd_frame_threshold(sm_count, cpu_threads)) return ZstdDecoder::gpu;
  if (batch.frames > 0 && batch.frame_bytes >= kLargeFrameBytes) return ZstdDecoder::gpu;
  return ZstdDecoder::cpu;
}

std::string describe_zstd_choice(ZstdRequest request, bool gpu_built, unsigned sm_count, unsigned cpu_threads) {
  if (!gpu_built) return "CPU threads: the GPU zstd decoder is not built";
  switch (request) {
    case ZstdRequest::cpu: return "CPU threads (zstd_decoder=cpu)";
    case ZstdRequest::gpu: return "GPU (zstd_decoder=gpu)";
    case ZstdRequest::auto_: break;
  }
  return "auto: GPU for batches of >= " + std::to_string(gpu_zstd_frame_threshold(sm_count, cpu_threads)) +
         " frames (min(" + std::to_string(kFramesPerSm) + " x " + std::to_string(sm_count) + " SMs, " +
         std::to_string(kFramesPerCpuThread) + " x " + std::to_string(cpu_threads) +
         " CPU threads)) or of frames of >= " + std::to_string(kLargeFrameBytes >> 10) + " KiB, CPU threads otherwise";
}

}  // namespace zarrgpu::engine::device_read
