#include "codec/bytes_to_bytes/blosc/blosc_device_decoder.hpp"

#include <string>

#include "codec/bytes_to_bytes/blosc/blosc_device_choice.hpp"
#include "codec/bytes_to_bytes/blosc/decoder/status.hpp"
#include "zarrgpu/error.hpp"

#if defined(ZARRGPU_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "codec/bytes_to_bytes/blosc/gpu/blosc_gpu.hpp"
#include "gpu/cuda_check.hpp"
#endif

namespace zarrgpu::codec {
namespace {

// When the decoder is worth using (blosc_device_choice.hpp): host code, the
// same with and without CUDA.
class BloscDeviceChoice : public BatchedDeviceDecoder {
 public:
  explicit BloscDeviceChoice(std::string_view cname) : cname_(cname), on_gpu_(blosc_device::gpu_decodes(cname)) {}
  DecoderChoice choice() const override { return on_gpu_ ? config().blosc_decoder : DecoderChoice::cpu; }
  bool prefers_device(std::size_t chunks, std::size_t max_decoded_bytes, const DecodeResources& with) const override {
    return blosc_device::prefers_gpu(chunks, max_decoded_bytes, with);
  }
  std::string describe_choice(const DecodeResources& with) const override {
    return blosc_device::describe(config().blosc_decoder, cname_, with);
  }
  std::string status_name(std::uint32_t status) const override {
    return std::string("blosc frame: ") + blosc::status_name(static_cast<blosc::Status>(status));
  }
  // Frames of zlib or zstd streams (host_only_codec) and snappy ones
  // (unsupported_codec: c-blosc decides whether it has snappy) are c-blosc's.
  bool needs_host(std::uint32_t status) const override {
    const auto s = static_cast<blosc::Status>(status);
    return s == blosc::Status::host_only_codec || s == blosc::Status::unsupported_codec;
  }

 private:
  std::string cname_;
  bool on_gpu_;
};

#if defined(ZARRGPU_HAVE_CUDA)
namespace bgpu = zarrgpu::blosc::gpu;

class BloscDeviceDecoder final : public BloscDeviceChoice {
 public:
  using BloscDeviceChoice::BloscDeviceChoice;
  // Scratch for undoing the shuffles, a chunk's worth each: the batch's
  // decoded bytes again, whatever the budget (the decoder has no waves).
  std::size_t temp_bytes(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t,
                         const DeviceChunkNeeds&) const override {
    std::size_t t = 0;
    if (bgpu::get_decompress_temp_size(chunks, max_decoded_bytes, &t) != bgpu::kSuccess)
      throw Error(ErrorKind::internal, "blosc: the GPU decoder refused its temp size query");
    return t;
  }

  void decode_async(const DeviceBatch& b, void* temp, std::size_t temp_bytes, DeviceStream stream) const override {
    const int r = bgpu::decompress_async(b.in_ptrs, b.in_sizes, b.out_ptrs, b.out_capacities, b.out_sizes, b.statuses,
                                         b.chunks, b.max_decoded_bytes, temp, temp_bytes, stream);
    if (r != bgpu::kSuccess) ZARRGPU_CUDA_CHECK(static_cast<cudaError_t>(r));
  }
};
#else
[[noreturn]] void not_built() { throw Error(ErrorKind::internal, "blosc: this build has no GPU decoder (no CUDA)"); }

class BloscDeviceDecoder final : public BloscDeviceChoice {
 public:
  using BloscDeviceChoice::BloscDeviceChoice;
  std::size_t temp_bytes(std::size_t, std::size_t, std::size_t, const DeviceChunkNeeds&) const override { not_built(); }
  void decode_async(const DeviceBatch&, void*, std::size_t, DeviceStream) const override { not_built(); }
};
#endif

}  // namespace

const BatchedDeviceDecoder& blosc_device_decoder(std::string_view cname) {
  // One form per cname BloscCodec accepts (its constructor rejects others).
  static const BloscDeviceDecoder blosclz("blosclz"), lz4("lz4"), lz4hc("lz4hc"), zstd("zstd"), zlib("zlib"),
      snappy("snappy");
  if (cname == "blosclz") return blosclz;
  if (cname == "lz4") return lz4;
  if (cname == "lz4hc") return lz4hc;
  if (cname == "zstd") return zstd;
  if (cname == "zlib") return zlib;
  if (cname == "snappy") return snappy;
  throw Error(ErrorKind::internal, "blosc: no device form for cname " + std::string(cname));
}

}  // namespace zarrgpu::codec
