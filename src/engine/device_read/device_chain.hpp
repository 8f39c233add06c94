// How a codec chain decodes on the device path: which steps run on the GPU,
// which on CPU threads, and how the decoded chunk is read when it is placed.
//
// Decode order is bytes->bytes codecs last to first, then array->bytes, then
// array->array last to first. The GPU runs:
//   bytes->bytes  zstd (our batched decoder), then numcodecs.shuffle
//   array->bytes  bytes: its byte order is swapped while placing
//   array->array  transpose: fused into placement as permuted source strides;
//                 numcodecs.delta on integers (with no transpose): an in-place
//                 scan before placement
// Anything else puts a prefix of the chain on the CPU: all bytes->bytes codecs
// (into pinned memory; the GPU does the rest), or, when the array->bytes or
// an array->array codec has no GPU form, the whole chain (CodecChain::decode),
// and the GPU only places. Host code, so CI tests the classification.
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
  bool zstd = false;              // gpu mode: zstd decoded on the GPU (else no compressor)
  unsigned shuffle_elementsize = 0;  // gpu mode: numcodecs.shuffle after zstd (0: none)
  unsigned swap = 0;              // byte-swap component size for the `bytes` codec (0: native)
  bool delta = false;             // integer numcodecs.delta on the GPU (native values after swap)
  // Element stride in the decoded-and-swapped buffer of each chunk dimension
  // (C order, or permuted by transpose codecs); the cpu mode's buffer is C order.
  std::vector<std::int64_t> src_strides;
  std::size_t decoded_bytes = 0;  // the chunk's size (chunk().nbytes())
  std::string gpu_codecs;         // codecs decoded on the GPU, for messages ("zstd")

  const char* mode_name() const noexcept;
};

// `gpu_zstd`: whether the batched GPU zstd decoder may be used.
DeviceChain classify_chain(const codec::CodecChain& chain, bool gpu_zstd);

}  // namespace zarrgpu::engine::device_read
