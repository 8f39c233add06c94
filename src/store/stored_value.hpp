// One value opened for several reads that must all see the same version of
// it (a shard's index, then its inner chunks): a writer that replaces the
// value meanwhile (a new file renamed over it, as every writer of a local
// store does) is not seen by these reads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "zarrgpu/store.hpp"

namespace zarrgpu::store {

class StoredValue {
 public:
  virtual ~StoredValue() = default;
  virtual std::uint64_t size() const noexcept = 0;
  // Reads dest.size() bytes at `offset`; Error(io) when they run past size().
  virtual void read(std::uint64_t offset, std::span<std::byte> dest) const = 0;
};

// A store that can pin a version of a value more cheaply than copying it
// (LocalStore: an open descriptor; MemoryStore: a reference to the bytes).
class ValueOpener {
 public:
  virtual ~ValueOpener() = default;
  virtual std::unique_ptr<StoredValue> open_value(std::string_view key) = 0;
};

// `key` opened for reads of one version; nullptr when it is missing. Stores
// that are not ValueOpeners give the whole value, read once into memory.
std::unique_ptr<StoredValue> open_value(Store& store, std::string_view key);

}  // namespace zarrgpu::store
