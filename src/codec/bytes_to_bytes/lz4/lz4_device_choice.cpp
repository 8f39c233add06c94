#include "codec/bytes_to_bytes/lz4/lz4_device_choice.hpp"

namespace zarrgpu::codec::lz4_device {

std::size_t chunk_threshold(const DecodeResources& with) noexcept {
  return device_threshold(kChunksPerSm, kChunksPerCpuThread, with);
}

bool prefers_gpu(std::size_t chunks, const DecodeResources& with) noexcept {
  return chunks > 0 && chunks >= chunk_threshold(with);
}

std::string describe(DecoderChoice choice, const DecodeResources& with) {
  if (choice != DecoderChoice::auto_) return describe_forced(choice, "lz4_decoder");
  return "auto: GPU for batches of >= " + std::to_string(chunk_threshold(with)) + " chunks (" +
         describe_threshold(kChunksPerSm, kChunksPerCpuThread, with) + ": one GPU thread a chunk), CPU threads otherwise";
}

}  // namespace zarrgpu::codec::lz4_device
