// zarrgpu.DeviceArray: a read's result in device memory (or, for tests and the
// CPU path, host memory), exported zero-copy through DLPack and the CUDA array
// interface. The memory lives as long as the array or any DLPack consumer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <nanobind/nanobind.h>

#include "zarrgpu/data_type.hpp"
#include "zarrgpu/device.hpp"

namespace zarrgpu::python {

// One allocation: cudaMalloc on device.index, or host memory for Device::cpu().
class DeviceAllocation {
 public:
  DeviceAllocation(std::size_t bytes, Device device);
  ~DeviceAllocation();
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;

  void* data() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }
  const Device& device() const noexcept { return device_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  Device device_;
};

// A CUDA event recorded after the read that fills an array (cudaEvent_t as void*).
class ReadyEvent {
 public:
  ReadyEvent(void* event, int device) : event_(event), device_(device) {}
  ~ReadyEvent();
  ReadyEvent(const ReadyEvent&) = delete;
  ReadyEvent& operator=(const ReadyEvent&) = delete;
  void* get() const noexcept { return event_; }
  int device() const noexcept { return device_; }

 private:
  void* event_;
  int device_;
};

struct DeviceArray {
  std::shared_ptr<DeviceAllocation> memory;
  std::vector<std::int64_t> shape;
  DataType dtype = DataType::float32;
  // The stream the producing read was enqueued on (0: the data is ready now)
  // and an event recorded on it after the read.
  std::uintptr_t stream = 0;
  std::shared_ptr<ReadyEvent> ready;

  static DeviceArray allocate(std::vector<std::int64_t> shape, DataType dtype, Device device);
  std::size_t nbytes() const noexcept { return memory ? memory->bytes() : 0; }
  void* data() const noexcept { return memory ? memory->data() : nullptr; }
  const Device& device() const noexcept { return memory->device(); }
};

// ---- CUDA streams for reads (cuda_stream in ReadOptions) --------------------
// Translates the Array API / CAI stream integers: 1 = legacy default stream,
// 2 = per-thread default stream, anything else is a cudaStream_t.
void* cuda_stream_handle(std::uintptr_t stream);
// A non-blocking stream of our own on `device`, destroyed by release_stream.
void* create_stream(int device);
void release_stream(void* stream, int device);
void synchronize_stream(void* stream, int device);
// Records an event on `stream` (after a read) for consumers to wait on.
std::shared_ptr<ReadyEvent> record_ready(void* stream, int device);
// Makes `consumer` (a cudaStream_t) wait until `array` is ready.
void wait_ready(const DeviceArray& array, void* consumer);
// Device-to-host copy (synchronous) of `bytes` from a device pointer.
void copy_device_to_host(void* host, const void* device_ptr, std::size_t bytes);

void bind_device_array(nanobind::module_& m);

}  // namespace zarrgpu::python
