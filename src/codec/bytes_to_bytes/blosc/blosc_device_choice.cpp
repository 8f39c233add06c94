#include "codec/bytes_to_bytes/blosc/blosc_device_choice.hpp"

#include <algorithm>

namespace zarrgpu::codec::blosc_device {

bool gpu_decodes(std::string_view cname) noexcept {
  // LZ4HC writes LZ4 blocks: the frame header names it lz4.
  return cname == "blosclz" || cname == "lz4" || cname == "lz4hc";
}

std::size_t block_threshold(const DecodeResources& with) noexcept {
  return device_threshold(kBlocksPerSm, kBlocksPerCpuThread, with);
}

std::size_t estimated_blocks(std::size_t chunks, std::size_t chunk_bytes) noexcept {
  const std::size_t per_chunk = std::max<std::size_t>(1, (chunk_bytes + kAssumedBlockBytes - 1) / kAssumedBlockBytes);
  if (chunks > SIZE_MAX / per_chunk) return SIZE_MAX;
  return chunks * per_chunk;
}

bool prefers_gpu(std::size_t chunks, std::size_t chunk_bytes, const DecodeResources& with) noexcept {
  return chunks > 0 && estimated_blocks(chunks, chunk_bytes) >= block_threshold(with);
}

std::string describe(DecoderChoice choice, std::string_view cname, const DecodeResources& with) {
  if (!gpu_decodes(cname))
    return "CPU threads: the GPU decoder has no " + std::string(cname) + " (blosc_decoder=" +
           std::string(to_string(choice)) + ")";
  if (choice != DecoderChoice::auto_) return describe_forced(choice, "blosc_decoder");
  return "auto: GPU for batches of >= " + std::to_string(block_threshold(with)) + " Blosc blocks (" +
         describe_threshold(kBlocksPerSm, kBlocksPerCpuThread, with) + "; a chunk counted as its bytes / " +
         std::to_string(kAssumedBlockBytes >> 10) + " KiB), CPU threads otherwise";
}

}  // namespace zarrgpu::codec::blosc_device
