#include "codec/bytes_to_bytes/numcodecs/shuffle_device_step.hpp"

#include <cstddef>

#include "zarrgpu/error.hpp"

#if defined(ZARRGPU_HAVE_CUDA)
#include "gpu/shuffle.hpp"
#endif

namespace zarrgpu::codec {

#if defined(ZARRGPU_HAVE_CUDA)
static_assert(sizeof(gpu::ShuffleItem) == sizeof(DeviceBytesItem) &&
              offsetof(gpu::ShuffleItem, src_offset) == offsetof(DeviceBytesItem, src_offset) &&
              offsetof(gpu::ShuffleItem, dst_offset) == offsetof(DeviceBytesItem, dst_offset) &&
              offsetof(gpu::ShuffleItem, bytes) == offsetof(DeviceBytesItem, bytes));

void UnshuffleDeviceStep::decode_async(const DeviceBytesItem* items, std::uint32_t num_items,
                                       std::uint64_t max_item_bytes, const std::byte* src, std::byte* dst,
                                       DeviceStream stream) const {
  gpu::unshuffle(reinterpret_cast<const gpu::ShuffleItem*>(items), num_items, max_item_bytes, src, dst, elementsize_,
                 stream);
}
#else
void UnshuffleDeviceStep::decode_async(const DeviceBytesItem*, std::uint32_t, std::uint64_t, const std::byte*,
                                       std::byte*, DeviceStream) const {
  throw Error(ErrorKind::internal, "numcodecs.shuffle: this build has no GPU decoder (no CUDA)");
}
#endif

}  // namespace zarrgpu::codec
