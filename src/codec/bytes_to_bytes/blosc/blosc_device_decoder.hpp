// The `blosc` codec's device form: the batched GPU Blosc 1 decoder
// (gpu/blosc_gpu.hpp) behind the codec interface's BatchedDeviceDecoder.
// One per inner compressor the codec names (its cname): for one the GPU does
// not decode, the form's choice() is always cpu and its description says
// why (blosc_device_choice.hpp). Its calls throw in a build without CUDA,
// where nothing reads into device memory.
#pragma once

#include <string_view>

#include "codec/device_decoder.hpp"

namespace zarrgpu::codec {

const BatchedDeviceDecoder& blosc_device_decoder(std::string_view cname);

}  // namespace zarrgpu::codec
