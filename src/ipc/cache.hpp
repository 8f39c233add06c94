// The cache service's memory: entries (an array read from a store, or a named
// array a client created) in shared memory, within a byte budget, evicted least
// recently used first, and leases on them. An entry under a lease is never
// evicted, so its memory is never freed or reused while a client may read it;
// a connection's leases end with it. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "zarrgpu/ipc.hpp"

namespace zarrgpu::ipc {

struct CacheEntry {
  std::string key;
  SharedMemory memory;
  Descriptor descriptor;  // of the whole entry, without a lease
  std::uint64_t bytes = 0;
  std::size_t leases = 0;
  bool named = false;      // created by a client: never evicted, removed by remove_named
  bool published = false;  // a named entry others may open
  std::uint64_t creator = 0;  // the connection that created a named entry (its writer)
};

struct Lease {
  std::string id;
  std::shared_ptr<CacheEntry> entry;
  bool hit = false;  // found in the cache rather than made for this request
};

struct CacheStats {
  std::size_t entries = 0;
  std::size_t leases = 0;
  std::uint64_t bytes = 0;    // held by entries and by entries being made
  std::uint64_t budget = 0;
  std::uint64_t leased_bytes = 0;
  std::uint64_t hits = 0, misses = 0, evictions = 0;
  std::size_t waiting = 0;    // requests waiting for other connections to release the budget
};

class Cache {
 public:
  // `lease_prefix` makes lease ids of one service instance unlike another's;
  // `budget_wait`: how long a request waits for other connections to release
  // the budget before it is refused (see reserve).
  Cache(std::uint64_t budget, std::string lease_prefix,
        std::chrono::milliseconds budget_wait = std::chrono::seconds(10));

  // Leases the entry under `key`, making it with `make` on a miss (once,
  // however many connections ask at the same time: the others wait for it).
  // `make` gets the bytes reserved for it and runs without the cache's lock.
  // Error(invalid_argument): `bytes` exceeds the whole budget; Error(device):
  // entries under lease hold too much of it to make room, and no other
  // connection released enough within `budget_wait`; whatever `make`
  // throws (the reservation is returned, nothing is cached).
  Lease lease_or_make(const std::string& key, std::uint64_t bytes, std::uint64_t connection,
                      const std::function<CacheEntry()>& make);
  // Leases an existing entry; nullptr entry when absent. Named entries only
  // once published, unless `connection` created them.
  Lease lease_existing(const std::string& key, std::uint64_t connection);
  // Adds a named entry (made by `make` within the budget) leased to its creator.
  // Error(invalid_argument) when the name is taken.
  Lease create_named(const std::string& key, std::uint64_t bytes, std::uint64_t connection,
                     const std::function<CacheEntry()>& make);
  // Error(not_found): no such named entry; Error(invalid_argument): not its creator.
  void publish(const std::string& key, std::uint64_t connection);
  // Error(not_found): no such entry; Error(invalid_argument): leases remain.
  void remove_named(const std::string& key);
  // Error(not_found): `lease` is not one of `connection`'s.
  void release(const std::string& lease, std::uint64_t connection);
  // Ends every lease of a connection (it closed or died).
  void release_connection(std::uint64_t connection);
  CacheStats stats() const;

 private:
  // Makes room for `bytes` (evicting unleased entries, LRU first) and reserves
  // it; caller holds the lock. While leases and reads of other connections
  // hold the room, waits (up to budget_wait_) for them to end: many clients
  // taking short leases share a small budget instead of being refused.
  void reserve(std::unique_lock<std::mutex>& lock, std::uint64_t bytes, std::uint64_t connection);
  // Evicts unleased entries, LRU first, until `bytes` more fit or none is left.
  void evict_for(std::uint64_t bytes);
  // Whether a connection other than `connection`, not itself waiting for room,
  // holds a lease or is making an entry: room may yet be freed.
  bool others_may_free(std::uint64_t connection) const;
  // Reserves, makes (unlocked) and inserts an entry leased to `connection`.
  Lease make_entry(std::unique_lock<std::mutex>& lock, const std::string& key, std::uint64_t bytes,
                   std::uint64_t connection, bool named, const std::function<CacheEntry()>& make);
  Lease grant(const std::shared_ptr<CacheEntry>& entry, std::uint64_t connection, bool hit);
  void touch(const std::string& key);

  const std::uint64_t budget_;
  const std::string prefix_;
  const std::chrono::milliseconds budget_wait_;
  mutable std::mutex mutex_;
  std::condition_variable made_;   // an entry in making_ finished (or failed)
  std::condition_variable changed_;  // leases, reads or waiters changed: room may be free
  std::multiset<std::uint64_t> waiting_;  // connections waiting in reserve
  std::map<std::string, std::shared_ptr<CacheEntry>> entries_;
  std::list<std::string> lru_;     // front: most recently used
  std::map<std::string, std::list<std::string>::iterator> lru_position_;
  std::set<std::string> making_;
  std::uint64_t used_ = 0;         // entries' bytes plus reservations
  struct Held {
    std::shared_ptr<CacheEntry> entry;
    std::uint64_t connection;
  };
  std::map<std::string, Held> leases_;
  std::uint64_t next_lease_ = 1;
  std::uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;
};

}  // namespace zarrgpu::ipc
