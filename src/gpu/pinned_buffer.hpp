// Owned page-locked host memory (cudaMallocHost / cudaFreeHost), move-only:
// the source of asynchronous host-to-device copies at full PCIe/NVLink rate.
#pragma once

#include <cstddef>
#include <span>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace zarrgpu::gpu {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes) { allocate(bytes); }
  PinnedBuffer(PinnedBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) { release(); data_ = std::exchange(o.data_, nullptr); size_ = std::exchange(o.size_, 0); }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { release(); }

  // Grows to at least `bytes` (old contents are not kept). The caller makes
  // sure no copy still reads the old memory (StagingRing waits on its event).
  void reserve(std::size_t bytes) {
    if (bytes <= size_) return;
    release();
    allocate(bytes);
  }

  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::span<std::byte> span() const noexcept { return {data_, size_}; }

 private:
  void allocate(std::size_t bytes) {
    if (bytes == 0) return;
    void* p = nullptr;
    const cudaError_t s = cudaMallocHost(&p, bytes);
    if (s != cudaSuccess) throw_allocation_error(s, "cudaMallocHost", bytes);
    data_ = static_cast<std::byte*>(p);
    size_ = bytes;
  }
  void release() noexcept {
    if (data_) cudaFreeHost(data_);
    data_ = nullptr;
    size_ = 0;
  }

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace zarrgpu::gpu
