// Buffers reused from one read to the next (Store::read_reusing and
// Store::read_whole_into say why reads land in memory the caller keeps).
#pragma once

#include <cstddef>

#include "zarrgpu/buffer.hpp"

namespace zarrgpu::store {

// Sets `buffer` to `size` uninitialised bytes, reusing its capacity without
// copying what it held (Bytes::resize keeps the old bytes when it grows).
inline void reset_bytes(Bytes& buffer, std::size_t size) {
  buffer.resize(0);
  buffer.resize(size);
}

}  // namespace zarrgpu::store
