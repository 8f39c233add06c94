#include "ipc/cache.hpp"

#include <vector>

#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {

Cache::Cache(std::uint64_t budget, std::string lease_prefix, std::chrono::milliseconds budget_wait)
    : budget_(budget), prefix_(std::move(lease_prefix)), budget_wait_(budget_wait) {}

void Cache::touch(const std::string& key) {
  auto it = lru_position_.find(key);
  if (it != lru_position_.end()) lru_.splice(lru_.begin(), lru_, it->second);
}

Lease Cache::grant(const std::shared_ptr<CacheEntry>& entry, std::uint64_t connection, bool hit) {
  Lease l{prefix_ + "-" + std::to_string(next_lease_++), entry, hit};
  ++entry->leases;
  leases_.emplace(l.id, Held{entry, connection});
  touch(entry->key);
  return l;
}

void Cache::evict_for(std::uint64_t bytes) {
  for (auto it = lru_.end(); used_ + bytes > budget_ && it != lru_.begin();) {
    --it;
    auto e = entries_.find(*it);
    if (e == entries_.end() || e->second->leases > 0 || e->second->named) continue;
    used_ -= e->second->bytes;
    ++evictions_;
    lru_position_.erase(*it);
    entries_.erase(e);  // the service's mapping goes; importers keep theirs
    it = lru_.erase(it);
  }
}

bool Cache::others_may_free(std::uint64_t connection) const {
  if (!making_.empty()) return true;  // a read in progress: its client may release it soon
  for (const auto& [id, held] : leases_)
    if (held.connection != connection && !waiting_.count(held.connection)) return true;
  return false;
}

void Cache::reserve(std::unique_lock<std::mutex>& lock, std::uint64_t bytes, std::uint64_t connection) {
  if (bytes > budget_)
    throw Error(ErrorKind::invalid_argument, "the request needs " + std::to_string(bytes) + " bytes, more than the cache's whole budget of " +
                                                 std::to_string(budget_));
  // Leased and named entries stay. Waiting helps only while another connection
  // that is not itself waiting could release (else all waiters would wait out
  // the deadline on one another).
  const auto deadline = std::chrono::steady_clock::now() + budget_wait_;
  for (bool joined = false;; joined = true) {
    evict_for(bytes);
    if (used_ + bytes <= budget_) break;
    if (!others_may_free(connection) || std::chrono::steady_clock::now() >= deadline)
      throw Error(ErrorKind::device, "the cache's budget of " + std::to_string(budget_) + " bytes is full: " + std::to_string(used_) +
                                         " bytes are leased, named or being read, " + std::to_string(bytes) + " more requested");
    waiting_.insert(connection);
    // Other waiters re-check once: this connection will not release now.
    if (!joined) changed_.notify_all();
    changed_.wait_until(lock, deadline);
    waiting_.erase(waiting_.find(connection));
  }
  used_ += bytes;
}

Lease Cache::make_entry(std::unique_lock<std::mutex>& lock, const std::string& key, std::uint64_t bytes,
                        std::uint64_t connection, bool named, const std::function<CacheEntry()>& make) {
  reserve(lock, bytes, connection);
  making_.insert(key);
  std::shared_ptr<CacheEntry> entry;
  try {
    lock.unlock();
    entry = std::make_shared<CacheEntry>(make());
    lock.lock();
  } catch (...) {
    if (!lock.owns_lock()) lock.lock();
    used_ -= bytes;  // the reservation goes back
    making_.erase(key);
    made_.notify_all();
    changed_.notify_all();
    throw;
  }
  entry->key = key;
  entry->bytes = bytes;  // the reservation becomes the entry's
  entry->named = named;
  entry->creator = connection;
  entries_[key] = entry;
  lru_.push_front(key);
  lru_position_[key] = lru_.begin();
  making_.erase(key);
  made_.notify_all();
  changed_.notify_all();
  return grant(entry, connection, false);
}

Lease Cache::lease_or_make(const std::string& key, std::uint64_t bytes, std::uint64_t connection,
                           const std::function<CacheEntry()>& make) {
  std::unique_lock lock(mutex_);
  // Another connection making the same entry: wait for it rather than read twice.
  made_.wait(lock, [&] { return !making_.count(key); });
  if (auto it = entries_.find(key); it != entries_.end()) {
    ++hits_;
    return grant(it->second, connection, true);
  }
  ++misses_;
  return make_entry(lock, key, bytes, connection, false, make);
}

Lease Cache::lease_existing(const std::string& key, std::uint64_t connection) {
  std::unique_lock lock(mutex_);
  made_.wait(lock, [&] { return !making_.count(key); });
  auto it = entries_.find(key);
  if (it == entries_.end()) return {};
  if (it->second->named && !it->second->published && it->second->creator != connection) return {};
  ++hits_;
  return grant(it->second, connection, true);
}

Lease Cache::create_named(const std::string& key, std::uint64_t bytes, std::uint64_t connection,
                          const std::function<CacheEntry()>& make) {
  std::unique_lock lock(mutex_);
  made_.wait(lock, [&] { return !making_.count(key); });
  if (entries_.count(key)) throw Error(ErrorKind::invalid_argument, "a named array \"" + key.substr(key.find('\n') + 1) + "\" exists");
  return make_entry(lock, key, bytes, connection, true, make);
}

void Cache::publish(const std::string& key, std::uint64_t connection) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end() || !it->second->named) throw Error(ErrorKind::not_found, "no named array \"" + key.substr(key.find('\n') + 1) + "\"");
  if (it->second->creator != connection)
    throw Error(ErrorKind::invalid_argument, "only the connection that created \"" + key.substr(key.find('\n') + 1) + "\" publishes it");
  it->second->published = true;
}

void Cache::remove_named(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end() || !it->second->named) throw Error(ErrorKind::not_found, "no named array \"" + key.substr(key.find('\n') + 1) + "\"");
  if (it->second->leases)
    throw Error(ErrorKind::invalid_argument, "\"" + key.substr(key.find('\n') + 1) + "\" is under " + std::to_string(it->second->leases) + " lease(s)");
  used_ -= it->second->bytes;
  lru_.erase(lru_position_[key]);
  lru_position_.erase(key);
  entries_.erase(it);
  changed_.notify_all();
}

void Cache::release(const std::string& lease, std::uint64_t connection) {
  std::lock_guard lock(mutex_);
  auto it = leases_.find(lease);
  if (it == leases_.end() || it->second.connection != connection)
    throw Error(ErrorKind::not_found, "no lease \"" + lease + "\" on this connection");
  --it->second.entry->leases;
  leases_.erase(it);
  changed_.notify_all();
}

void Cache::release_connection(std::uint64_t connection) {
  std::lock_guard lock(mutex_);
  for (auto it = leases_.begin(); it != leases_.end();) {
    if (it->second.connection == connection) {
      --it->second.entry->leases;
      it = leases_.erase(it);
    } else {
      ++it;
    }
  }
  changed_.notify_all();
}

CacheStats Cache::stats() const {
  std::lock_guard lock(mutex_);
  CacheStats s;
  s.entries = entries_.size();
  s.leases = leases_.size();
  s.bytes = used_;
  s.budget = budget_;
  for (const auto& [k, e] : entries_)
    if (e->leases) s.leased_bytes += e->bytes;
  s.hits = hits_;
  s.misses = misses_;
  s.evictions = evictions_;
  s.waiting = waiting_.size();
  return s;
}

}  // namespace zarrgpu::ipc
