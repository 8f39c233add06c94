// The annotation of codec format logic that runs on both sides: nvcc
// compiles it for the host and the device, a host-only build (and the host
// tests, fuzzers and tools) sees plain C++. Shared by the Zstandard, LZ4 and
// Blosc decoders, so one translation unit may include all of them.
#pragma once

#if defined(__CUDACC__)
#define ZARRGPU_HD __host__ __device__
#define ZARRGPU_HD_INLINE __host__ __device__ __forceinline__
#else
#define ZARRGPU_HD
#define ZARRGPU_HD_INLINE inline
#endif
