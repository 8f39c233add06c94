#include "codec/bytes_to_bytes/numcodecs/shuffle_device_step.hpp"

#include "zarrgpu/error.hpp"

#if defined(ZARRGPU_HAVE_CUDA)
#include "codec/bytes_to_bytes/numcodecs/shuffle_kernel.hpp"
#endif

namespace zarrgpu::codec {

#if defined(ZARRGPU_HAVE_CUDA)
void UnshuffleDeviceStep::decode_async(const DeviceBytesItem* items, std::uint32_t num_items,
                                       std::uint64_t max_item_bytes, const std::byte* src, std::byte* dst,
                                       DeviceStream stream) const {
  unshuffle_async(items, num_items, max_item_bytes, src, dst, elementsize_, stream);
}
#else
void UnshuffleDeviceStep::decode_async(const DeviceBytesItem*, std::uint32_t, std::uint64_t, const std::byte*,
                                       std::byte*, DeviceStream) const {
  throw Error(ErrorKind::internal, "numcodecs.shuffle: this build has no GPU decoder (no CUDA)");
}
#endif

}  // namespace zarrgpu::codec
