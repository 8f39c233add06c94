// Every CUDA runtime call's result is checked; a failure is Error(device)
// naming the call, CUDA's error name and string, and where it happened.
// cudaErrorMemoryAllocation says "out of GPU memory" with the size, when known.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace zarrgpu::gpu {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
// cudaMalloc / cudaMallocHost failures: says how much was asked for.
[[noreturn]] void throw_allocation_error(cudaError_t status, const char* what, std::size_t bytes);

}  // namespace zarrgpu::gpu

#define ZARRGPU_CUDA_CHECK(call)                                                      \
  do {                                                                                \
    const cudaError_t zarrgpu_cuda_status_ = (call);                                  \
    if (zarrgpu_cuda_status_ != cudaSuccess)                                          \
      ::zarrgpu::gpu::throw_cuda_error(zarrgpu_cuda_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: launch-configuration errors surface here, not later.
#define ZARRGPU_CUDA_CHECK_LAUNCH(name) ZARRGPU_CUDA_CHECK(cudaPeekAtLastError())
