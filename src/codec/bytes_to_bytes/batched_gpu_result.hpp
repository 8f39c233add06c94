// The return value of the batched GPU decoders' host calls (zstd/gpu,
// lz4/gpu, blosc/gpu: get_decompress_temp_size, decompress_async), as in
// nvCOMP's batched API: 0 on success, else the cudaError_t of the failed
// launch, or kInvalidArgument for bad arguments found before any launch.
// Plain C++: no CUDA header needed.
#pragma once

namespace zarrgpu::batched_gpu {

using Result = int;
inline constexpr Result kSuccess = 0;
inline constexpr Result kInvalidArgument = 1;  // == cudaErrorInvalidValue

}  // namespace zarrgpu::batched_gpu
