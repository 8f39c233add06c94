// The `numcodecs.lz4` codec's device form: the batched GPU LZ4 decoder
// (gpu/lz4_gpu.hpp, numcodecs framing) behind the codec interface's
// BatchedDeviceDecoder. Its calls throw in a build without CUDA, where
// nothing reads into device memory.
#pragma once

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec {

const BatchedDeviceDecoder& lz4_device_decoder();

}  // namespace zarrgpu::codec
