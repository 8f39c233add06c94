// Where a read's output lives.
#pragma once

#include <string>
#include <string_view>

namespace zarrgpu {

struct Device {
  enum class Kind { cpu, cuda };
  Kind kind = Kind::cpu;
  int index = 0;

  static Device cpu() { return {}; }
  static Device cuda(int i = 0) { return {Kind::cuda, i}; }
  static Device parse(std::string_view s);  // "cpu", "cuda", "cuda:1"
  std::string to_string() const;
  bool operator==(const Device&) const = default;
};

// Whether this build has the CUDA path and a GPU is present at run time.
bool cuda_available() noexcept;

// Device discovery before any CUDA work on `device`: Error(device) "no CUDA
// device ..." when the machine has none usable (no GPU, or no NVIDIA driver:
// cudaErrorNoDevice, cudaErrorInsufficientDriver), Error(invalid_argument)
// for an index past the device count, Error(unsupported) in a build without
// the CUDA path.
void require_cuda_device(Device device);

// Frees the pinned staging ring and the device buffers that device reads keep
// for the next read (up to a few GiB a staging slot on large GPUs); the next
// device read allocates them again. Buffers of reads in flight are left to
// them. Does nothing in a build without CUDA. Config::keep_device_buffers =
// false releases them after every read instead.
void release_device_memory();

}  // namespace zarrgpu
