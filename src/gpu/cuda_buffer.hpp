// Owned CUDA memory, move-only, for each kind of allocation the library
// makes: device memory (cudaMalloc / cudaFree) and page-locked host memory
// (cudaMallocHost / cudaFreeHost). Sizes are bytes; contents are
// uninitialised. Freeing synchronises the device, so a buffer must outlive
// the work that uses it anyway; keep buffers long-lived.
#pragma once

#include <cstddef>
#include <span>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace zarrgpu::gpu {

// How a CudaBuffer allocates and frees (a policy, as CUB passes them).
struct DeviceMemory {
  static constexpr const char* kAllocateName = "cudaMalloc";
  static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
  static void free(void* p) { cudaFree(p); }  // a failure here has nowhere to go; the error stays for the next check
};
struct PinnedMemory {
  static constexpr const char* kAllocateName = "cudaMallocHost";
  static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
  static void free(void* p) { cudaFreeHost(p); }
};

template <class Memory>
class CudaBuffer {
 public:
  CudaBuffer() = default;
  explicit CudaBuffer(std::size_t bytes) { allocate(bytes); }
  CudaBuffer(CudaBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  CudaBuffer& operator=(CudaBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  ~CudaBuffer() { release(); }

  // Grows to at least `bytes` (old contents are not kept). The caller makes
  // sure no work still uses the old memory (StagingRing waits on its event).
  void reserve(std::size_t bytes) {
    if (bytes <= size_) return;
    release();
    allocate(bytes);
  }

  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::span<std::byte> span() const noexcept { return {data_, size_}; }
  template <class T> T* as() const noexcept { return reinterpret_cast<T*>(data_); }

 private:
  void allocate(std::size_t bytes) {
    if (bytes == 0) return;
    void* p = nullptr;
    const cudaError_t s = Memory::allocate(&p, bytes);
    if (s != cudaSuccess) throw_allocation_error(s, Memory::kAllocateName, bytes);
    data_ = static_cast<std::byte*>(p);
    size_ = bytes;
  }
  void release() noexcept {
    if (data_) Memory::free(data_);
    data_ = nullptr;
    size_ = 0;
  }

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

// Device memory: kernels' inputs, outputs and scratch.
using DeviceBuffer = CudaBuffer<DeviceMemory>;
// Page-locked host memory: the source of asynchronous host-to-device copies
// at full PCIe/NVLink rate.
using PinnedBuffer = CudaBuffer<PinnedMemory>;

}  // namespace zarrgpu::gpu
