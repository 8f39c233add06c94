#include "codec/array_to_array/numcodecs/delta_device_step.hpp"

#include "zarrgpu/error.hpp"

#if defined(ZARRGPU_HAVE_CUDA)
#include "codec/array_to_array/numcodecs/delta_kernel.hpp"
#endif

namespace zarrgpu::codec {
namespace {

class IntegerDeltaDeviceStep final : public DeviceArrayStep {
 public:
  void decode_async(const DeviceArrayItem* items, std::uint32_t num_items, std::byte* data, unsigned element_size,
                    unsigned load_swap, DeviceStream stream) const override {
#if defined(ZARRGPU_HAVE_CUDA)
    delta_decode_async(items, num_items, data, element_size, load_swap, stream);
#else
    (void)items, (void)num_items, (void)data, (void)element_size, (void)load_swap, (void)stream;
    throw Error(ErrorKind::internal, "numcodecs.delta: this build has no GPU decoder (no CUDA)");
#endif
  }
};

}  // namespace

const DeviceArrayStep& integer_delta_device_step() {
  static const IntegerDeltaDeviceStep step;
  return step;
}

}  // namespace zarrgpu::codec
