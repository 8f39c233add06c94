// An owned, uninitialised, resizable byte buffer (std::vector would zero-fill
// chunk-sized allocations on every decode).
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>

namespace zarrgpu {

class Bytes {
 public:
  Bytes() = default;
  explicit Bytes(std::size_t size) : data_(size ? new std::byte[size] : nullptr), size_(size), capacity_(size) {}
  Bytes(const void* src, std::size_t size) : Bytes(size) { if (size) std::memcpy(data_.get(), src, size); }
  static Bytes copy_of(std::span<const std::byte> s) { return Bytes(s.data(), s.size()); }

  std::byte* data() noexcept { return data_.get(); }
  const std::byte* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  // Keeps the first min(size, new_size) bytes; new bytes are uninitialised.
  void resize(std::size_t new_size) {
    if (new_size > capacity_) {
      std::unique_ptr<std::byte[]> d(new std::byte[new_size]);
      if (size_) std::memcpy(d.get(), data_.get(), size_);
      data_ = std::move(d);
      capacity_ = new_size;
    }
    size_ = new_size;
  }

  std::span<std::byte> span() noexcept { return {data(), size_}; }
  std::span<const std::byte> span() const noexcept { return {data(), size_}; }
  operator std::span<const std::byte>() const noexcept { return span(); }

 private:
  std::unique_ptr<std::byte[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace zarrgpu
