// RAII CUDA streams and events, and a scope that makes a device current and
// restores the previous one (a library must not change the caller's device).
#pragma once

#include <utility>

#include "gpu/cuda_check.hpp"

namespace zarrgpu::gpu {

class Stream {
 public:
  // Non-blocking: it does not synchronise with the legacy default stream.
  Stream() { ZARRGPU_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  ~Stream() { if (s_) cudaStreamDestroy(s_); }

  cudaStream_t get() const noexcept { return s_; }
  void synchronize() const { ZARRGPU_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  // timing = false: cheaper, for ordering only.
  explicit Event(bool timing = false) {
    ZARRGPU_CUDA_CHECK(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&&) = delete;
  Event(const Event&) = delete;
  ~Event() { if (e_) cudaEventDestroy(e_); }

  cudaEvent_t get() const noexcept { return e_; }
  void record(cudaStream_t s) const { ZARRGPU_CUDA_CHECK(cudaEventRecord(e_, s)); }
  void synchronize() const { ZARRGPU_CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Makes `s` wait for this event's work (no host synchronisation).
  void wait_on(cudaStream_t s) const { ZARRGPU_CUDA_CHECK(cudaStreamWaitEvent(s, e_, 0)); }
  // Milliseconds from `start` to this event; both recorded with timing on and complete.
  float elapsed_since(const Event& start) const {
    float ms = 0.0f;
    ZARRGPU_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    ZARRGPU_CUDA_CHECK(cudaGetDevice(&previous_));
    if (device != previous_) ZARRGPU_CUDA_CHECK(cudaSetDevice(device));
    current_ = device;
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  ~DeviceScope() { if (current_ != previous_) cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
  int current_ = 0;
};

}  // namespace zarrgpu::gpu
