// Reads that land in memory the caller keeps from one read to the next.
//
// Store::read hands back fresh Bytes for a value whose size it learns only
// when it opens it. At ERA5 chunk sizes (10-17 MB) the page faults of fresh
// memory cost as much as decoding the chunk, so the read engine reads each
// chunk into a per-thread buffer it reuses, or, for an uncompressed chunk that
// is a contiguous run of the output, straight into the output. Internal (not
// part of the Store API): a store that can do this in one open + pread
// implements ReusingReader (LocalStore does); any other store goes through
// Store::read and a copy.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "zarrgpu/store.hpp"

namespace zarrgpu::store {

class ReusingReader {
 public:
  virtual bool read_reusing(const ReadRequest& request, Bytes& buffer) = 0;
  virtual std::optional<std::uint64_t> read_whole_into(std::string_view key, std::span<std::byte> dest) = 0;

 protected:
  ~ReusingReader() = default;
};

// Reads `request` into `buffer`, resized to the bytes read (its capacity is
// reused; its old contents are not kept). False when the key is missing.
// Errors as Store::read (a range past the end of the value: Error(io)).
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
