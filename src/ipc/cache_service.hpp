// `zarrgpu serve`: the cache service (docs/ipc.md). Listens on a Unix socket in
// a user-only directory, admits peers of this user (and an explicit allow
// list) by SO_PEERCRED, serves each connection on a thread of its own, and
// answers requests with descriptors and leases on shared memory from the
// cache (cache.hpp). A connection that closes (its client exited or crashed)
// releases its leases; nothing a client does affects another's answers.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "ipc/cache.hpp"
#include "ipc/unix_socket.hpp"
#include "zarrgpu/device.hpp"

namespace zarrgpu::ipc {

struct ServiceOptions {
  std::string socket_path;          // "" = default_socket_path()
  std::uint64_t budget = 1ull << 30;  // bytes of shared memory the cache may hold
  Device device = Device::cpu();    // where reads land by default: host memfd, or device memory (VMM fds)
  std::vector<Device> more_devices;  // further GPUs a request may name ("device": "cuda:1")
  std::vector<uid_t> allow_uids;    // peers admitted besides this user
  std::string store_root;           // "": any store this user can read; else stores beneath it only
};

class CacheService {
 public:
  explicit CacheService(ServiceOptions options);
  ~CacheService();
  CacheService(const CacheService&) = delete;
  CacheService& operator=(const CacheService&) = delete;

  // Binds the socket (listen_unix's errors); run() then serves until stop().
  void bind();
  void run();
  // Safe from a signal handler: wakes run(), which closes every connection and returns.
  void stop() noexcept;

  const std::string& socket_path() const noexcept { return options_.socket_path; }
  const std::string& instance() const noexcept { return instance_; }

  // Answers one request of connection `id` (service_requests.cpp); `fds` gets
  // the descriptors to send with the answer (owned: closed after sending).
  nlohmann::json answer(const nlohmann::json& request, std::uint64_t id, std::vector<FileDescriptor>& fds);

 private:
  void serve(FileDescriptor socket, std::uint64_t id);
  bool admitted(int socket) const;

  ServiceOptions options_;
  std::string instance_;
  Cache cache_;
  FileDescriptor listener_;
  FileDescriptor wake_read_, wake_write_;
  std::atomic<bool> stopping_{false};
  std::mutex connections_mutex_;
  std::map<std::uint64_t, int> connections_;  // id -> socket, for shutdown on stop
  std::map<std::uint64_t, std::thread> threads_;
  std::vector<std::uint64_t> finished_;  // connections whose threads may be joined
  std::uint64_t next_connection_ = 1;
};

}  // namespace zarrgpu::ipc
