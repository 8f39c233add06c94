// Host entry point: decodes one chunk on the CPU with the very code the GPU
// kernel runs, the group being a single thread.
#pragma once

#include <memory>

#include "config.hpp"
#include "frame.hpp"
#include "group.hpp"
#include "workspace.hpp"

namespace zarrgpu::zstd {

struct DecodeOptions {
  bool verify_checksum = true;  // check Content_Checksum (XXH64) where frames carry one
};

// Decodes all frames of src (Zstandard and skippable, concatenated) into
// dst[0, capacity). On success *decoded_size is the number of bytes written.
// Bytes of dst past *decoded_size, but inside capacity, may be overwritten.
inline Status decode_frames(const void* src, size_t src_size, void* dst, size_t capacity, size_t* decoded_size,
                            const DecodeOptions& options = {}) {
  size_t ignored = 0;
  if (decoded_size == nullptr) decoded_size = &ignored;
  *decoded_size = 0;
  if ((src == nullptr && src_size != 0) || (dst == nullptr && capacity != 0)) return Status::invalid_argument;
  auto ws = std::make_unique<Workspace>();
  reset_workspace(*ws);
  return decode_chunk(SerialGroup{}, *ws, static_cast<const uint8_t*>(src), src_size, static_cast<uint8_t*>(dst),
                      capacity, decoded_size, options.verify_checksum);
}

}  // namespace zarrgpu::zstd
