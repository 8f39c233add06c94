// The C++ client of the cache service, `zarrgpu serve` (docs/ipc.md, "The
// cache service"): leases on arrays the service reads (or clients create)
// into shared memory, mapped here without a copy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "zarrgpu/data_type.hpp"
#include "zarrgpu/ipc.hpp"

namespace zarrgpu::ipc {

// An array lent by the service. Its memory is neither evicted, freed nor
// reused until the lease is released or the client's connection closes; the
// mapping here stays valid as long as this object (or a copy) lives.
struct CacheLease {
  std::string id;
  Descriptor descriptor;  // read_only unless this client created the array and has not published it
  SharedMemory memory;
  bool hit = false;
  // The first element (host memory: a host pointer; device memory: a device pointer).
  void* data() const noexcept { return static_cast<std::byte*>(memory.data()) + (memory.data() ? descriptor.byte_offset : 0); }
};

class CacheClient {
 public:
  // Connects and greets the service at `socket_path` ("": the default path).
  // Error(not_found): no service there; Error(io): it closed the connection.
  explicit CacheClient(const std::string& socket_path = "");
  ~CacheClient();
  CacheClient(CacheClient&&) noexcept;
  CacheClient& operator=(CacheClient&&) noexcept;

  // Every request throws the error the service answers (its kind and cause),
  // or Error(io) "… closed the connection (it exited or restarted)".
  CacheLease read(const std::string& store, const std::string& array = "", const std::string& selection = "");
  CacheLease create(const std::string& name, DataType t, const std::vector<std::uint64_t>& shape);
  void publish(const std::string& name);
  CacheLease open(const std::string& name);
  void remove(const std::string& name);
  void release(const CacheLease& lease);
  // The service's counters as JSON text ({"entries", "leases", "bytes", "budget", …}).
  std::string stats_json();

  // The service instance this client talks to: another after a restart.
  const std::string& instance() const noexcept;
  // "host" or "device".
  const std::string& memory() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zarrgpu::ipc
