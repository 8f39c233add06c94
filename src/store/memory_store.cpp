// A thread-safe store held in memory. Values are immutable once written and
// shared by pointer, so a read copies outside the lock while a writer replaces
// the value (readers see the old bytes or the new ones, never a mix).
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "store/byte_range.hpp"
#include "store/stored_value.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::store {
namespace {

bool under(std::string_view key, std::string_view prefix) {
  if (prefix.empty()) return true;
  if (prefix.back() == '/') return key.starts_with(prefix);
  return key == prefix || (key.starts_with(prefix) && key.size() > prefix.size() && key[prefix.size()] == '/');
}

// A value as it was when opened: the writer replaces the pointer, not the bytes.
class SharedValue final : public StoredValue {
 public:
  SharedValue(std::shared_ptr<const Bytes> value, std::string key, std::string store)
      : value_(std::move(value)), key_(std::move(key)), store_(std::move(store)) {}
  std::uint64_t size() const noexcept override { return value_->size(); }
  void read(std::uint64_t offset, std::span<std::byte> dest) const override {
    const auto r = resolve_range(ByteRange::of(offset, dest.size()), value_->size(), key_, store_);
    if (r.length) std::memcpy(dest.data(), value_->data() + r.offset, r.length);
  }

 private:
  std::shared_ptr<const Bytes> value_;
  std::string key_, store_;
};

class MemoryStore final : public Store, public ValueOpener {
 public:
  std::vector<ReadResult> read(std::span<const ReadInto> requests) override {
    std::vector<ReadResult> out(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const auto& req = requests[i];
      std::shared_ptr<const Bytes> value;
      {
        std::shared_lock lk(mutex_);
        auto it = values_.find(req.request.key);
        if (it != values_.end()) value = it->second;
      }
      if (!value) continue;
      const auto r = resolve_range(req.request.range, value->size(), req.request.key, describe());
      auto& res = out[i];
      res.found = true;
      res.size = r.length;
      if (!req.dest.empty()) {
        if (req.dest.size() != r.length) {
          throw Error(ErrorKind::invalid_argument, "read of '" + req.request.key + "': destination holds " +
                                                       std::to_string(req.dest.size()) + " bytes, range " +
                                                       std::to_string(r.length),
                      {"", req.request.key, "", describe()});
        }
        if (r.length) std::memcpy(req.dest.data(), value->data() + r.offset, r.length);
      } else {
        res.data = Bytes(value->data() + r.offset, r.length);
      }
    }
    return out;
  }

  void write(std::string_view key, std::span<const std::byte> value) override {
    check_key(key, describe());
    auto v = std::make_shared<const Bytes>(value.data(), value.size());
    std::unique_lock lk(mutex_);
    values_[std::string(key)] = std::move(v);
  }

  void erase(std::string_view key) override {
    std::unique_lock lk(mutex_);
    if (auto it = values_.find(key); it != values_.end()) values_.erase(it);
  }

  bool exists(std::string_view key) override {
    std::shared_lock lk(mutex_);
    return values_.find(key) != values_.end();
  }

  std::vector<std::string> list(std::string_view prefix) override {
    std::vector<std::string> keys;
    std::shared_lock lk(mutex_);
    for (auto it = values_.lower_bound(prefix); it != values_.end() && it->first.starts_with(prefix); ++it) {
      if (under(it->first, prefix)) keys.push_back(it->first);
    }
    return keys;
  }

  std::optional<std::uint64_t> size(std::string_view key) override {
    std::shared_lock lk(mutex_);
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second->size();
  }

  std::unique_ptr<StoredValue> open_value(std::string_view key) override {
    std::shared_ptr<const Bytes> value;
    {
      std::shared_lock lk(mutex_);
      auto it = values_.find(key);
      if (it == values_.end()) return nullptr;
      value = it->second;
    }
    return std::make_unique<SharedValue>(std::move(value), std::string(key), describe());
  }

  std::string describe() const override { return "memory://"; }

 private:
  std::shared_mutex mutex_;
  std::map<std::string, std::shared_ptr<const Bytes>, std::less<>> values_;
};

}  // namespace
}  // namespace zarrgpu::store

namespace zarrgpu {
std::shared_ptr<Store> make_memory_store() { return std::make_shared<store::MemoryStore>(); }
}  // namespace zarrgpu
