#include "gpu/cuda_check.hpp"

#include <string>

#include "zarrgpu/error.hpp"

namespace zarrgpu::gpu {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  // Clear a non-sticky error so that the next, unrelated call does not report it again.
  cudaGetLastError();
  std::string cause = std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                      cudaGetErrorString(status) + ") at " + file + ":" + std::to_string(line);
  if (status == cudaErrorMemoryAllocation) cause = "out of GPU memory: " + cause;
  throw Error(ErrorKind::device, std::move(cause));
}

[[noreturn]] void throw_allocation_error(cudaError_t status, const char* what, std::size_t bytes) {
  cudaGetLastError();
  std::string cause = std::string(what) + " of " + std::to_string(bytes) + " bytes failed: " +
                      cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
  if (status == cudaErrorMemoryAllocation) {
    cause = (std::string(what) == "cudaMallocHost" ? "out of pinned host memory: " : "out of GPU memory: ") + cause;
  }
  throw Error(ErrorKind::device, std::move(cause));
}

}  // namespace zarrgpu::gpu
