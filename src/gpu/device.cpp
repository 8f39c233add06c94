#include "zarrgpu/device.hpp"

#include <charconv>
#include <string>

#include "zarrgpu/error.hpp"

#if defined(ZARRGPU_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace zarrgpu {

Device Device::parse(std::string_view s) {
  if (s == "cpu") return Device::cpu();
  constexpr std::string_view cuda = "cuda";
  if (s.substr(0, cuda.size()) == cuda) {
    std::string_view rest = s.substr(cuda.size());
    if (rest.empty()) return Device::cuda(0);
    if (rest.front() == ':' && rest.size() > 1) {
      int index = -1;
      auto [p, ec] = std::from_chars(rest.data() + 1, rest.data() + rest.size(), index);
      if (ec == std::errc{} && p == rest.data() + rest.size() && index >= 0) return Device::cuda(index);
    }
  }
  throw Error(ErrorKind::invalid_argument,
              "device '" + std::string(s) + "' is not one of \"cpu\", \"cuda\", \"cuda:N\"");
}

std::string Device::to_string() const {
  if (kind == Kind::cpu) return "cpu";
  return "cuda:" + std::to_string(index);
}

bool cuda_available() noexcept {
#if defined(ZARRGPU_HAVE_CUDA)
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // not sticky, but leave no error behind for the caller
    return false;
  }
  return n > 0;
#else
  return false;
#endif
}

void require_cuda_device(Device device) {
  if (device.kind != Device::Kind::cuda) {
    throw Error(ErrorKind::invalid_argument, "a CUDA device was needed, got " + device.to_string());
  }
#if defined(ZARRGPU_HAVE_CUDA)
  int n = 0;
  const cudaError_t status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess || n == 0) {
    cudaGetLastError();
    std::string why = "no GPU found";
    if (status == cudaErrorInsufficientDriver) why = "no NVIDIA driver, or one older than this CUDA runtime";
    else if (status != cudaSuccess && status != cudaErrorNoDevice) why = cudaGetErrorString(status);
    throw Error(ErrorKind::device, "no CUDA device for " + device.to_string() + " (" + why + ")");
  }
  if (device.index < 0 || device.index >= n) {
    throw Error(ErrorKind::invalid_argument,
                device.to_string() + " does not exist (" + std::to_string(n) + " CUDA devices)");
  }
#else
  throw Error(ErrorKind::unsupported, "this build of zarrgpu has no CUDA path (asked for " + device.to_string() +
                                          "; built with ZARRGPU_CUDA=OFF or without nvcc)");
#endif
}

}  // namespace zarrgpu
