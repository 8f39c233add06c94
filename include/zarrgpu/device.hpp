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

}  // namespace zarrgpu
