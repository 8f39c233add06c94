// ZARRGPU_HD marks index math shared by kernels and host code: nvcc compiles
// it for both sides, a host-only build (and CI's host tests) sees plain C++.
#pragma once

#if defined(__CUDACC__)
#define ZARRGPU_HD __host__ __device__ __forceinline__
#else
#define ZARRGPU_HD inline
#endif
