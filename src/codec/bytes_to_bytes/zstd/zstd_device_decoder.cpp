#include "codec/bytes_to_bytes/zstd/zstd_device_decoder.hpp"

#include "codec/bytes_to_bytes/zstd/zstd_device_choice.hpp"
#include "zarrgpu/error.hpp"

#if defined(ZARRGPU_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"
#include "gpu/cuda_check.hpp"
#endif

namespace zarrgpu::codec {
namespace {

// When the decoder is worth using (zstd_device_choice.hpp): host code, the
// same with and without CUDA.
class ZstdDeviceChoice : public BatchedDeviceDecoder {
 public:
  DecoderChoice choice() const override { return config().zstd_decoder; }
  bool prefers_device(std::size_t chunks, std::size_t max_decoded_bytes, const DecodeResources& with) const override {
    return zstd_device::prefers_gpu(chunks, max_decoded_bytes, with);
  }
  std::string describe_choice(const DecodeResources& with) const override {
    return zstd_device::describe(choice(), with);
  }
  std::size_t default_temp_budget(std::size_t decoded_scratch_bytes) const override {
    return zstd_device::kTempPerScratch * decoded_scratch_bytes;
  }
};

#if defined(ZARRGPU_HAVE_CUDA)
namespace zgpu = zarrgpu::zstd::gpu;
static_assert(sizeof(zgpu::Status) == sizeof(std::uint32_t));

zgpu::DecompressOptions options(std::size_t max_decoded_bytes, std::size_t temp_budget, const DeviceChunkNeeds& needs) {
  zgpu::DecompressOptions o;
  o.chunk_needs_known = needs.known;
  o.chunk_needs = {needs.literal_bytes, needs.sequences};
  o.max_uncompressed_chunk_bytes = max_decoded_bytes;
  o.wave_temp_bytes = temp_budget;
  // Callers keep several batches in flight, each on its stream: their
  // kernels overlap already, and the decoder's weight classes (a second
  // stream per batch) made the 8 GB read slower (bench/results/gpu_read.md).
  o.weight_classes = false;
  return o;
}

class ZstdDeviceDecoder final : public ZstdDeviceChoice {
 public:
  std::size_t temp_bytes(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t temp_budget,
                         const DeviceChunkNeeds& needs) const override {
    std::size_t t = 0;
    const int r = zgpu::get_decompress_temp_size(chunks, max_decoded_bytes,
                                                 options(max_decoded_bytes, temp_budget, needs), &t);
    if (r != zgpu::kSuccess) ZARRGPU_CUDA_CHECK(static_cast<cudaError_t>(r));
    return t;
  }

  DeviceChunkNeeds measure(std::span<const std::byte> stored, std::size_t max_decoded_bytes) const override {
    const zgpu::ChunkNeeds n = zgpu::measure_chunk_needs(stored.data(), stored.size(), max_decoded_bytes);
    return {true, n.literal_bytes, n.sequences};
  }

  void decode_async(const DeviceBatch& b, void* temp, std::size_t temp_bytes, DeviceStream stream) const override {
    zgpu::DecompressOptions o = options(b.max_decoded_bytes, b.temp_budget, b.needs);
    o.verify_checksum = b.verify_checksum;
    const int r = zgpu::decompress_async(b.in_ptrs, b.in_sizes, b.out_ptrs, b.out_capacities, b.out_sizes,
                                         reinterpret_cast<zgpu::Status*>(b.statuses), b.chunks, temp, temp_bytes, o,
                                         stream);
    if (r != zgpu::kSuccess) ZARRGPU_CUDA_CHECK(static_cast<cudaError_t>(r));
  }

  std::string status_name(std::uint32_t status) const override {
    return zgpu::status_name(static_cast<zgpu::Status>(status));
  }
};
#else
[[noreturn]] void not_built() { throw Error(ErrorKind::internal, "zstd: this build has no GPU decoder (no CUDA)"); }

class ZstdDeviceDecoder final : public ZstdDeviceChoice {
 public:
  std::size_t temp_bytes(std::size_t, std::size_t, std::size_t, const DeviceChunkNeeds&) const override { not_built(); }
  void decode_async(const DeviceBatch&, void*, std::size_t, DeviceStream) const override { not_built(); }
  std::string status_name(std::uint32_t status) const override { return "status " + std::to_string(status); }
};
#endif

}  // namespace

const BatchedDeviceDecoder& zstd_device_decoder() {
  static const ZstdDeviceDecoder decoder;
  return decoder;
}

}  // namespace zarrgpu::codec
