// The `zstd` codec's device form: the batched GPU decoder (gpu/zstd_gpu.hpp)
// behind the codec interface's BatchedDeviceDecoder. Its calls throw in a
// build without CUDA, where nothing reads into device memory.
#pragma once

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec {

const BatchedDeviceDecoder& zstd_device_decoder();

}  // namespace zarrgpu::codec
