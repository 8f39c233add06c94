#include "store/stored_value.hpp"

#include <cstring>
#include <string>

#include "store/byte_range.hpp"

namespace zarrgpu::store {

namespace {
class BufferedValue final : public StoredValue {
 public:
  BufferedValue(Bytes data, std::string key, std::string store)
      : data_(std::move(data)), key_(std::move(key)), store_(std::move(store)) {}
  std::uint64_t size() const noexcept override { return data_.size(); }
  void read(std::uint64_t offset, std::span<std::byte> dest) const override {
    const auto r = resolve_range(ByteRange::of(offset, dest.size()), data_.size(), key_, store_);
    if (r.length) std::memcpy(dest.data(), data_.data() + r.offset, r.length);
  }

 private:
  Bytes data_;
  std::string key_, store_;
};
}  // namespace

std::unique_ptr<StoredValue> open_value(Store& store, std::string_view key) {
  if (auto* opener = dynamic_cast<ValueOpener*>(&store)) return opener->open_value(key);
  auto data = store.get(key);
  if (!data) return nullptr;
  return std::make_unique<BufferedValue>(std::move(*data), std::string(key), store.describe());
}

}  // namespace zarrgpu::store
