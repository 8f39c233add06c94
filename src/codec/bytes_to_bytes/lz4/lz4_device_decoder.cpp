#include "codec/bytes_to_bytes/lz4/lz4_device_decoder.hpp"

#include "codec/bytes_to_bytes/lz4/lz4_device_choice.hpp"
#include "codec/bytes_to_bytes/lz4/decoder/status.hpp"
#include "zarrgpu/error.hpp"

#if defined(ZARRGPU_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "codec/bytes_to_bytes/lz4/gpu/lz4_gpu.hpp"
#include "gpu/cuda_check.hpp"
#endif

namespace zarrgpu::codec {
namespace {

// When the decoder is worth using (lz4_device_choice.hpp): host code, the
// same with and without CUDA.
class Lz4DeviceChoice : public BatchedDeviceDecoder {
 public:
  DecoderChoice choice() const override { return config().lz4_decoder; }
  bool prefers_device(std::size_t chunks, std::size_t, const DecodeResources& with) const override {
    return lz4_device::prefers_gpu(chunks, with);
  }
  std::string describe_choice(const DecodeResources& with) const override {
    return lz4_device::describe(choice(), with);
  }
  std::string status_name(std::uint32_t status) const override {
    return std::string("lz4 block: ") + lz4::status_name(static_cast<lz4::Status>(status));
  }
};

#if defined(ZARRGPU_HAVE_CUDA)
namespace lgpu = zarrgpu::lz4::gpu;

class Lz4DeviceDecoder final : public Lz4DeviceChoice {
 public:
  std::size_t temp_bytes(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t,
                         const DeviceChunkNeeds&) const override {
    std::size_t t = 0;
    if (lgpu::get_decompress_temp_size(chunks, max_decoded_bytes, &t) != lgpu::kSuccess)
      throw Error(ErrorKind::internal, "numcodecs.lz4: the GPU decoder refused its temp size query");
    return t;
  }

  void decode_async(const DeviceBatch& b, void*, std::size_t, DeviceStream stream) const override {
    // The framing's size header is checked against the capacity, which the
    // read sets to the chunk's decoded size.
    const int r = lgpu::decompress_async(b.in_ptrs, b.in_sizes, b.out_ptrs, b.out_capacities, b.out_sizes, b.statuses,
                                         b.chunks, lgpu::Framing::numcodecs, stream);
    if (r != lgpu::kSuccess) ZARRGPU_CUDA_CHECK(static_cast<cudaError_t>(r));
  }
};
#else
[[noreturn]] void not_built() {
  throw Error(ErrorKind::internal, "numcodecs.lz4: this build has no GPU decoder (no CUDA)");
}

class Lz4DeviceDecoder final : public Lz4DeviceChoice {
 public:
  std::size_t temp_bytes(std::size_t, std::size_t, std::size_t, const DeviceChunkNeeds&) const override { not_built(); }
  void decode_async(const DeviceBatch&, void*, std::size_t, DeviceStream) const override { not_built(); }
};
#endif

}  // namespace

const BatchedDeviceDecoder& lz4_device_decoder() {
  static const Lz4DeviceDecoder decoder;
  return decoder;
}

}  // namespace zarrgpu::codec
