#include "codec/bytes_to_bytes/zstd/zstd_device_choice.hpp"

#include <algorithm>

#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"

namespace zarrgpu::codec::zstd_device {

// Batches of large frames go to the GPU whatever their number because the
// decoder splits such frames into blocks.
static_assert(kLargeFrameBytes >= ::zarrgpu::zstd::gpu::kBlockParallelMinChunkBytes);

std::size_t frame_threshold(const DecodeResources& with) noexcept {
  return device_threshold(kFramesPerSm, kFramesPerCpuThread, with);
}

bool prefers_gpu(std::size_t frames, std::size_t frame_bytes, const DecodeResources& with) noexcept {
  if (frames >= frame_threshold(with)) return true;
  return frames > 0 && frame_bytes >= kLargeFrameBytes;
}

std::string describe(DecoderChoice choice, const DecodeResources& with) {
  if (choice != DecoderChoice::auto_) return describe_forced(choice, "zstd_decoder");
  return "auto: GPU for batches of >= " + std::to_string(frame_threshold(with)) + " frames (" +
         describe_threshold(kFramesPerSm, kFramesPerCpuThread, with) + ") or of frames of >= " +
         std::to_string(kLargeFrameBytes >> 10) + " KiB, CPU threads otherwise";
}

}  // namespace zarrgpu::codec::zstd_device
