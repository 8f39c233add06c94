// The `numcodecs.shuffle` codec's device form: byte planes gathered back to
// element order on the GPU (shuffle_kernel.hpp), for element sizes of 1 to
// kMaxElementSize bytes. Its calls throw in a build without CUDA.
#pragma once

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec {

class UnshuffleDeviceStep final : public DeviceBytesStep {
 public:
  // The kernel gathers an element's bytes one by one; larger elements
  // (never written by numcodecs' users) decode on CPU threads.
  static constexpr unsigned kMaxElementSize = 64;

  explicit UnshuffleDeviceStep(unsigned elementsize) : elementsize_(elementsize) {}
  void decode_async(const DeviceBytesItem* items, std::uint32_t num_items, std::uint64_t max_item_bytes,
                    const std::byte* src, std::byte* dst, DeviceStream stream) const override;

 private:
  unsigned elementsize_;
};

}  // namespace zarrgpu::codec
