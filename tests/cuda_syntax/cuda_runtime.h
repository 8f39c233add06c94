// A stand-in for the CUDA runtime header, just enough for clang to parse and
// type-check zarrgpu's CUDA code on machines without the CUDA SDK, such as
// CI (tests/cuda_syntax/check.sh): the GPU Zstd decoder's kernels for host
// and device, and the host code of src/gpu and src/engine/device_read.
// Declarations of what the code uses, nothing links or runs. Signatures
// follow the CUDA runtime API documentation.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDA__)
#include "__clang_cuda_builtin_vars.h"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#else
#define __global__
#define __device__
#define __host__
#define __shared__
#define __launch_bounds__(...)
#endif
#define __forceinline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))

enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
typedef enum cudaError cudaError_t;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaIpcMemLazyEnablePeerAccess 0x01
#define CUDART_VERSION 12040
#define cudaEnableDefault 0x0
typedef struct cudaIpcMemHandle_st { char reserved[64]; } cudaIpcMemHandle_t;
typedef struct cudaIpcEventHandle_st { char reserved[64]; } cudaIpcEventHandle_t;
enum cudaDriverEntryPointQueryResult {
  cudaDriverEntryPointSuccess = 0,
  cudaDriverEntryPointSymbolNotFound = 1,
  cudaDriverEntryPointVersionNotSufficent = 2
};
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};
typedef struct CUgraph_st* cudaGraph_t;
typedef struct CUgraphExec_st* cudaGraphExec_t;
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1, cudaStreamCaptureModeRelaxed = 2 };
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1, cudaStreamCaptureStatusInvalidated = 2 };
typedef struct CUuuid_st { char bytes[16]; } cudaUUID_t;
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  int multiProcessorCount;
  size_t totalGlobalMem;
  int major, minor;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

extern "C" {
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t);
const char* cudaGetErrorName(cudaError_t);
cudaError_t cudaGetDevice(int*);
cudaError_t cudaSetDevice(int);
cudaError_t cudaGetDeviceCount(int*);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceGetAttribute(int*, enum cudaDeviceAttr, int);
cudaError_t cudaMalloc(void**, size_t);
cudaError_t cudaFree(void*);
cudaError_t cudaMallocHost(void**, size_t);
cudaError_t cudaFreeHost(void*);
cudaError_t cudaMemcpy(void*, const void*, size_t, enum cudaMemcpyKind);
cudaError_t cudaMemcpyAsync(void*, const void*, size_t, enum cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes*, const void*);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp*, int);
cudaError_t cudaMemset(void*, int, size_t);
cudaError_t cudaStreamCreate(cudaStream_t*);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t*, unsigned);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t*, unsigned, int);
cudaError_t cudaDeviceGetStreamPriorityRange(int*, int*);
cudaError_t cudaStreamBeginCapture(cudaStream_t, enum cudaStreamCaptureMode);
cudaError_t cudaStreamIsCapturing(cudaStream_t, enum cudaStreamCaptureStatus*);
cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t*);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t*, cudaGraph_t, unsigned long long);
cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t);
cudaError_t cudaGraphDestroy(cudaGraph_t);
cudaError_t cudaEventCreate(cudaEvent_t*);
cudaError_t cudaStreamDestroy(cudaStream_t);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t*, unsigned);
cudaError_t cudaEventDestroy(cudaEvent_t);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float*, cudaEvent_t, cudaEvent_t);
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t*, void*);
cudaError_t cudaIpcOpenMemHandle(void**, cudaIpcMemHandle_t, unsigned int);
cudaError_t cudaIpcCloseMemHandle(void*);
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t*, cudaEvent_t);
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t*, cudaIpcEventHandle_t);
cudaError_t cudaGetDriverEntryPoint(const char*, void**, unsigned long long,
                                    enum cudaDriverEntryPointQueryResult* = nullptr);
cudaError_t cudaGetDriverEntryPointByVersion(const char*, void**, unsigned int, unsigned long long,
                                             enum cudaDriverEntryPointQueryResult* = nullptr);
// What clang's kernel<<<...>>> launches call.
int cudaConfigureCall(dim3, dim3, size_t = 0, cudaStream_t = nullptr);
unsigned __cudaPushCallConfiguration(dim3, dim3, size_t = 0, void* = nullptr);
}// The runtime's C++ template overload (cuda_runtime.h).
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int*, T, int, size_t);


// Device intrinsics the kernels use.
__device__ void __syncwarp(unsigned mask = 0xffffffff);
__device__ unsigned __shfl_sync(unsigned mask, unsigned v, int src, int width = 32);
__device__ unsigned __shfl_up_sync(unsigned mask, unsigned v, unsigned delta, int width = 32);
__device__ int __any_sync(unsigned mask, int p);
__device__ unsigned __ballot_sync(unsigned mask, int p);
__device__ unsigned __match_any_sync(unsigned mask, unsigned value);
__device__ void __nanosleep(unsigned ns);
__device__ void __threadfence();
__device__ unsigned long long atomicAdd(unsigned long long*, unsigned long long);
__device__ unsigned atomicAdd(unsigned*, unsigned);
__device__ unsigned atomicOr(unsigned*, unsigned);
__device__ unsigned long long atomicMin(unsigned long long*, unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __popc(unsigned);
__device__ int __ffs(int);
__device__ unsigned __funnelshift_r(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_l(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_lc(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_rc(unsigned, unsigned, unsigned);
__device__ unsigned __byte_perm(unsigned, unsigned, unsigned);
__device__ void __syncthreads();

// The C++ overloads of cuda_runtime.h.
template <class T>
cudaError_t cudaMalloc(T** p, size_t bytes) { return cudaMalloc(reinterpret_cast<void**>(p), bytes); }
template <class T>
cudaError_t cudaMallocHost(T** p, size_t bytes) { return cudaMallocHost(reinterpret_cast<void**>(p), bytes); }
