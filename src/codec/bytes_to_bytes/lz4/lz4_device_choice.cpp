#include "codec/bytes_to_bytes/lz4/lz4_device_choice.hpp"

#include <algorithm>

namespace zarrgpu::codec::lz4_device {

std::size_t chunk_threshold(const DecodeResources& with) noexcept {
  const std::size_t by_gpu = kChunksPerSm * std::max(1u, with.gpu_sms);
  const std::size_t by_cpu = kChunksPerCpuThread * std::max(1u, with.cpu_threads);
  return std::max<std::size_t>(1, std::min(by_gpu, by_cpu));
}

bool prefers_gpu(std::size_t chunks, const DecodeResources& with) noexcept {
  return chunks > 0 && chunks >= chunk_threshold(with);
}

std::string describe(DecoderChoice choice, const DecodeResources& with) {
  switch (choice) {
    case DecoderChoice::cpu: return "CPU threads (lz4_decoder=cpu)";
    case DecoderChoice::gpu: return "GPU (lz4_decoder=gpu)";
    case DecoderChoice::auto_: break;
  }
  return "auto: GPU for batches of >= " + std::to_string(chunk_threshold(with)) + " chunks (min(" +
         std::to_string(kChunksPerSm) + " x " + std::to_string(with.gpu_sms) + " SMs, " +
         std::to_string(kChunksPerCpuThread) + " x " + std::to_string(with.cpu_threads) +
         " CPU threads): one GPU thread a chunk), CPU threads otherwise";
}

}  // namespace zarrgpu::codec::lz4_device
