// Stores: byte-range reads and writes of keys, batched. A store knows nothing
// of Zarr (TensorStore's kvstore boundary).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zarrgpu/buffer.hpp"

namespace zarrgpu {

// [offset, offset + length); length == npos means "to the end";
// suffix_length > 0 means "the last suffix_length bytes" (a shard index at the end).
struct ByteRange {
  static constexpr std::uint64_t npos = ~std::uint64_t{0};
  std::uint64_t offset = 0;
  std::uint64_t length = npos;
  std::uint64_t suffix_length = 0;

  static ByteRange all() { return {}; }
  static ByteRange of(std::uint64_t offset, std::uint64_t length) { return {offset, length, 0}; }
  static ByteRange suffix(std::uint64_t n) { return {0, npos, n}; }
  bool is_all() const noexcept { return offset == 0 && length == npos && suffix_length == 0; }
};

struct ReadRequest {
  std::string key;
  ByteRange range;
};

// A read that may land in caller memory: when `dest` is non-empty the bytes go
// there (the range must be bounded and dest.size() == its length) and the
// result's Bytes stay empty.
struct ReadInto {
  ReadRequest request;
  std::span<std::byte> dest;
};

// What a store has asked of a server since it opened (HTTP and S3 stores;
// zero for local and memory stores, which make no requests).
struct StoreActivity {
  std::uint64_t requests = 0;       // requests sent, retries included
  std::uint64_t retries = 0;        // of those, repeats after a transient failure (5xx, timeout, reset)
  std::uint64_t bytes_fetched = 0;  // response body bytes received, of every attempt
};

struct ReadResult {
  bool found = false;       // false: the key does not exist (a missing chunk)
  Bytes data;               // the bytes, unless they were read into `dest`
  std::uint64_t size = 0;   // bytes delivered
};

class Store {
 public:
  virtual ~Store() = default;

  // Reads many ranges; implementations run them in parallel. A missing key is
  // found=false, not an error; a range past the end of a key is an Error(io).
  virtual std::vector<ReadResult> read(std::span<const ReadInto> requests) = 0;

  // Writes a whole key atomically: readers see the old value or the new one,
  // never a partial file (temporary name + rename for files).
  virtual void write(std::string_view key, std::span<const std::byte> value) = 0;
  virtual void erase(std::string_view key) = 0;
  virtual bool exists(std::string_view key) = 0;
  // Keys under `prefix` (recursively), relative to the store root.
  virtual std::vector<std::string> list(std::string_view prefix) = 0;
  // One level below `prefix` (zarr-python's list_dir): the names of the keys
  // directly under it and, ending in '/', of the prefixes with keys further
  // down ("zarr.json", "t2m/"); sorted. Costs one directory read on a
  // LocalStore, whatever lies deeper. The default filters list(prefix).
  virtual std::vector<std::string> list_dir(std::string_view prefix);
  // Size of a key in bytes, or nullopt if missing.
  virtual std::optional<std::uint64_t> size(std::string_view key) = 0;
  virtual std::string describe() const = 0;  // "file:///path", "memory://"
  // What kind of store this is: "file", "memory", "http", "s3", "gs". The default is
  // describe()'s URL scheme.
  virtual std::string kind() const;
  virtual StoreActivity activity() const noexcept { return {}; }

  // Conveniences over read().
  std::optional<Bytes> get(std::string_view key, ByteRange range = ByteRange::all());
};

// Whether each write of a local store is synced to disk before write() returns.
enum class WriteSync {
  each_write,  // fsync of the value and of its directory: durable once written
  none,        // scratch output, or a staged tree the caller syncs as a whole
};

// A directory on the local file system (parallel pread on a thread pool).
std::shared_ptr<Store> open_local_store(const std::string& root, bool create = false,
                                        WriteSync sync = WriteSync::each_write);
// A store held in memory.
std::shared_ptr<Store> make_memory_store();
// "file://..." or a plain path, "memory://", "http(s)://..." and
// "s3://bucket/prefix" (read-only; settings from the environment,
// ZARRGPU_HTTP_*, and for S3 the AWS variables and files: README.md).
std::shared_ptr<Store> open_store(const std::string& url, bool create = false);

}  // namespace zarrgpu
