// How a codec chain decodes on the device path: which steps run on the GPU,
// which on CPU threads, and how the decoded chunk is read when it is placed.
// Every GPU step is a device form the codec object offers
// (codec/device_decoder.hpp); the engine never looks at codec names.
//
// Decode order is bytes->bytes codecs last to first, then array->bytes, then
// array->array last to first. The GPU runs:
//   bytes->bytes  the innermost compressor's batched decoder (zstd,
//                 numcodecs.lz4, blosc), then at
//                 most one size-keeping step (numcodecs.shuffle)
//   array->bytes  a byte swap (`bytes`), folded into placement
//   array->array  codecs that only reorder axes (transpose): placement reads
//                 through permuted strides; or one in-place step (integer
//                 numcodecs.delta) without a reordering
// Anything else puts a prefix of the chain on the CPU: all bytes->bytes codecs
// (into pinned memory; the GPU does the rest), or, when the array->bytes or
// an array->array codec has no device form, the whole chain
// (CodecChain::decode), and the GPU only places. Host code, so CI tests the
// classification.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/codec.hpp"

namespace zarrgpu::engine::device_read {

struct DeviceChain {
  enum class Mode : std::uint8_t {
    gpu,        // every step on the GPU
    cpu_bytes,  // bytes->bytes codecs on CPU threads, the rest on the GPU
    cpu,        // the whole chain on CPU threads; the GPU places
  };
  Mode mode = Mode::cpu;
  // gpu mode: the compressor's batched decoder (nullptr: no compressor).
  const codec::BatchedDeviceDecoder* decoder = nullptr;
  // gpu mode: the size-keeping bytes->bytes step after the decoder (nullptr: none).
  const codec::DeviceBytesStep* bytes_step = nullptr;
  unsigned swap = 0;              // byte-swap component size of the array->bytes codec (0: native)
  // The in-place array->array step (nullptr: none); it runs on native values
  // after the swap, which it folds into its loads.
  const codec::DeviceArrayStep* array_step = nullptr;
  // Element stride in the decoded-and-swapped buffer of each chunk dimension
  // (C order, or permuted by transpose codecs); the cpu mode's buffer is C order.
  std::vector<std::int64_t> src_strides;
  std::size_t decoded_bytes = 0;  // the chunk's size (chunk().nbytes())
  std::string gpu_codecs;         // codecs decoded by the decoder and bytes step, for messages ("zstd")

  const char* mode_name() const noexcept;
};

// `device_decoders`: whether compressors' batched device decoders may be used
// (else their chains decode their bytes->bytes codecs on CPU threads).
DeviceChain classify_chain(const codec::CodecChain& chain, bool device_decoders);

// The batched device decoder of the chain's bytes->bytes codecs (the first
// to decode that has one), nullptr when none has: the read asks it whether
// to decode on the GPU, also when classify_chain puts it on CPU threads.
const codec::BatchedDeviceDecoder* find_device_decoder(const codec::CodecChain& chain);

// The name of the codec find_device_decoder() takes the decoder of ("" when
// none), for the read's report.
std::string device_decoder_codec(const codec::CodecChain& chain);

}  // namespace zarrgpu::engine::device_read
