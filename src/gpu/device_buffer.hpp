// Owned device memory (cudaMalloc / cudaFree), move-only. Sizes are bytes;
// contents are uninitialised. cudaFree synchronises the device, so a buffer
// must outlive the work that uses it anyway; keep buffers long-lived.
#pragma once

#include <cstddef>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace zarrgpu::gpu {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) { allocate(bytes); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) { release(); data_ = std::exchange(o.data_, nullptr); size_ = std::exchange(o.size_, 0); }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  // Grows to at least `bytes` (old contents are not kept).
  void reserve(std::size_t bytes) {
    if (bytes <= size_) return;
    release();
    allocate(bytes);
  }

  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  template <class T> T* as() const noexcept { return reinterpret_cast<T*>(data_); }

 private:
  void allocate(std::size_t bytes) {
    if (bytes == 0) return;
    void* p = nullptr;
    const cudaError_t s = cudaMalloc(&p, bytes);
    if (s != cudaSuccess) throw_allocation_error(s, "cudaMalloc", bytes);
    data_ = static_cast<std::byte*>(p);
    size_ = bytes;
  }
  void release() noexcept {
    if (data_) cudaFree(data_);  // a failure here has nowhere to go; the error stays for the next check
    data_ = nullptr;
    size_ = 0;
  }

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace zarrgpu::gpu
