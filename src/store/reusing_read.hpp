// Reads that land in memory the caller keeps from one read to the next (the
// read engine's per-thread buffers, or the output itself): fresh memory for
// each 10-17 MB chunk costs as many page faults as decoding it. The engine's
// own interface to stores, beside the public Store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "zarrgpu/buffer.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::store {

// A store that reads into caller memory better than Store::read and a copy
// (LocalStore: one open and one pread into the caller's memory).
class ReusingReader {
 public:
  virtual ~ReusingReader() = default;
  virtual bool read_reusing(const ReadRequest& request, Bytes& buffer) = 0;
  virtual std::optional<std::uint64_t> read_whole_into(std::string_view key, std::span<std::byte> dest) = 0;
};

// A store where a whole value costs one request, and asking its size first
// costs another round trip (HttpStore: one GET of at most limit + 1 bytes,
// rather than a HEAD and a GET).
class WholeValueReader {
 public:
  virtual ~WholeValueReader() = default;
  // The size of `key`'s value, nullopt when it is missing. When the size is
  // at most `limit`, `buffer` holds the value; otherwise the value is not
  // read (no more than limit + 1 of its bytes are received) and `buffer` holds
  // unspecified bytes. ByteRange::npos: no limit.
  virtual std::optional<std::uint64_t> read_whole_bounded(std::string_view key, std::uint64_t limit,
                                                          Bytes& buffer) = 0;
};

// Reads `request` into `buffer`, resized to the bytes read (its capacity is
// reused; its old contents are not kept). False when the key is missing.
// Errors as Store::read (a range past the end of the value: Error(io)).
// Stores that are not ReusingReaders go through Store::read and a copy.
bool read_reusing(Store& store, const ReadRequest& request, Bytes& buffer);
// Reads the whole value of `key` into `dest` when its length is exactly
// dest.size(). Returns the value's length (nullopt: the key is missing); when
// that differs from dest.size(), dest holds unspecified bytes and the caller
// must read the value another way.
std::optional<std::uint64_t> read_whole_into(Store& store, std::string_view key, std::span<std::byte> dest);

// Sets `buffer` to `size` uninitialised bytes, reusing its capacity without
// copying what it held (Bytes::resize keeps the old bytes when it grows).
inline void reset_bytes(Bytes& buffer, std::size_t size) {
  buffer.resize(0);
  buffer.resize(size);
}

}  // namespace zarrgpu::store
