#include "codec/bytes_to_bytes/zstd/zstd_device_choice.hpp"

#include <algorithm>

#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"

namespace zarrgpu::codec::zstd_device {

// Batches of large frames go to the GPU whatever their number because the
// decoder splits such frames into blocks.
static_assert(kLargeFrameBytes >= ::zarrgpu::zstd::gpu::kBlockParallelMinChunkBytes);

std::size_t frame_threshold(const DecodeResources& with) noexcept {
  const std::size_t by_gpu = kFramesPerSm * std::max(1u, with.gpu_sms);
  const std::size_t by_cpu = kFramesPerCpuThread * std::max(1u, with.cpu_threads);
  return std::max<std::size_t>(1, std::min(by_gpu, by_cpu));
}

bool prefers_gpu(std::size_t frames, std::size_t frame_bytes, const DecodeResources& with) noexcept {
  if (frames >= frame_threshold(with)) return true;
  return frames > 0 && frame_bytes >= kLargeFrameBytes;
}

std::string describe(DecoderChoice choice, const DecodeResources& with) {
  switch (choice) {
    case DecoderChoice::cpu: return "CPU threads (zstd_decoder=cpu)";
    case DecoderChoice::gpu: return "GPU (zstd_decoder=gpu)";
    case DecoderChoice::auto_: break;
  }
  return "auto: GPU for batches of >= " + std::to_string(frame_threshold(with)) + " frames (min(" +
         std::to_string(kFramesPerSm) + " x " + std::to_string(with.gpu_sms) + " SMs, " +
         std::to_string(kFramesPerCpuThread) + " x " + std::to_string(with.cpu_threads) +
         " CPU threads)) or of frames of >= " + std::to_string(kLargeFrameBytes >> 10) + " KiB, CPU threads otherwise";
}

}  // namespace zarrgpu::codec::zstd_device
