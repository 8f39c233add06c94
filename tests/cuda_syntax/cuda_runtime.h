// A stand-in for the CUDA runtime header, just enough for clang to parse and
// type-check the GPU Zstd decoder's kernels for host and device
// (tests/cuda_syntax/check.sh) on machines without the CUDA SDK, such as CI:
// declarations only, nothing links or runs.
#pragma once
#include <cstddef>
#include <cstdint>
#include "__clang_cuda_builtin_vars.h"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __forceinline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
typedef int cudaError_t;
typedef struct CUstream_st* cudaStream_t;
enum { cudaSuccess = 0 };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1 };
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
extern "C" {
cudaError_t cudaGetLastError();
cudaError_t cudaGetDevice(int*);
cudaError_t cudaDeviceGetAttribute(int*, cudaDeviceAttr, int);
cudaError_t cudaGetDeviceCount(int*);
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t);
cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t __cudaPushCallConfiguration(dim3, dim3, size_t = 0, void* = nullptr);
}
__device__ void __syncwarp(unsigned mask = 0xffffffff);
__device__ unsigned __shfl_sync(unsigned mask, unsigned v, int src, int width = 32);
__device__ int __any_sync(unsigned mask, int p);
__device__ void __nanosleep(unsigned ns);
__device__ void __threadfence();
__device__ unsigned long long atomicAdd(unsigned long long*, unsigned long long);
__device__ unsigned atomicOr(unsigned*, unsigned);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __popc(unsigned);
__device__ int __ffs(int);
__device__ unsigned __funnelshift_r(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_l(unsigned, unsigned, unsigned);
extern "C" int cudaConfigureCall(dim3, dim3, size_t = 0, cudaStream_t = nullptr);
