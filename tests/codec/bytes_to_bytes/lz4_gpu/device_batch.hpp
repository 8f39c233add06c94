// A batch of chunks on the GPU for the batched decoders' tests: inputs and
// guarded outputs in device memory, the nvCOMP-shaped pointer and size
// arrays, and the results copied back. Tests skip without a GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace zarrgpu::testing {

inline bool gpu_present() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

struct DeviceBatch {
  static constexpr size_t kGuard = 32;
  static constexpr uint8_t kGuardByte = 0x5A;
  using Bytes = std::vector<uint8_t>;

  std::vector<void*> in, out;
  void **d_in_ptrs = nullptr, **d_out_ptrs = nullptr;
  size_t *d_in_sizes = nullptr, *d_out_caps = nullptr, *d_out_sizes = nullptr;
  uint32_t* d_statuses = nullptr;
  std::vector<size_t> capacities;

  DeviceBatch(const std::vector<Bytes>& inputs, const std::vector<size_t>& caps) : capacities(caps) {
    const size_t n = inputs.size();
    std::vector<size_t> in_sizes(n);
    for (size_t i = 0; i < n; ++i) {
      void* p = nullptr;
      cudaMalloc(&p, inputs[i].size() + 1);
      cudaMemcpy(p, inputs[i].data(), inputs[i].size(), cudaMemcpyHostToDevice);
      in.push_back(p);
      in_sizes[i] = inputs[i].size();
      void* o = nullptr;
      cudaMalloc(&o, caps[i] + kGuard);
      cudaMemset(o, kGuardByte, caps[i] + kGuard);
      out.push_back(o);
    }
    cudaMalloc(&d_in_ptrs, n * sizeof(void*));
    cudaMalloc(&d_out_ptrs, n * sizeof(void*));
    cudaMalloc(&d_in_sizes, n * sizeof(size_t));
    cudaMalloc(&d_out_caps, n * sizeof(size_t));
    cudaMalloc(&d_out_sizes, n * sizeof(size_t));
    cudaMalloc(&d_statuses, n * sizeof(uint32_t));
    cudaMemcpy(d_in_ptrs, in.data(), n * sizeof(void*), cudaMemcpyHostToDevice);
    cudaMemcpy(d_out_ptrs, out.data(), n * sizeof(void*), cudaMemcpyHostToDevice);
    cudaMemcpy(d_in_sizes, in_sizes.data(), n * sizeof(size_t), cudaMemcpyHostToDevice);
    cudaMemcpy(d_out_caps, caps.data(), n * sizeof(size_t), cudaMemcpyHostToDevice);
  }
  ~DeviceBatch() {
    for (void* p : in) cudaFree(p);
    for (void* p : out) cudaFree(p);
    for (void* p : {static_cast<void*>(d_in_ptrs), static_cast<void*>(d_out_ptrs), static_cast<void*>(d_in_sizes),
                    static_cast<void*>(d_out_caps), static_cast<void*>(d_out_sizes), static_cast<void*>(d_statuses)})
      cudaFree(p);
  }
  size_t size() const { return in.size(); }

  struct Results {
    std::vector<uint32_t> statuses;
    std::vector<size_t> sizes;
    std::vector<Bytes> outputs;  // capacity + guard bytes each
  };
  Results results() const {
    Results r;
    r.statuses.resize(size());
    r.sizes.resize(size());
    cudaMemcpy(r.statuses.data(), d_statuses, size() * sizeof(uint32_t), cudaMemcpyDeviceToHost);
    cudaMemcpy(r.sizes.data(), d_out_sizes, size() * sizeof(size_t), cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < size(); ++i) {
      Bytes o(capacities[i] + kGuard);
      cudaMemcpy(o.data(), out[i], o.size(), cudaMemcpyDeviceToHost);
      r.outputs.push_back(std::move(o));
    }
    return r;
  }
};

inline bool guard_intact(const std::vector<uint8_t>& out, size_t capacity) {
  for (size_t i = capacity; i < out.size(); ++i)
    if (out[i] != DeviceBatch::kGuardByte) return false;
  return true;
}

}  // namespace zarrgpu::testing
