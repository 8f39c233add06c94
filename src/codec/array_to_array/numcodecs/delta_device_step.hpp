// The `numcodecs.delta` codec's device form for integers: an in-place
// prefix sum per chunk on the GPU (delta_kernel.hpp). Its calls throw in a
// build without CUDA.
#pragma once

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec {

const DeviceArrayStep& integer_delta_device_step();

}  // namespace zarrgpu::codec
