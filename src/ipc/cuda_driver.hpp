// The CUDA driver functions IPC needs beyond the runtime (address ranges and
// the virtual-memory API), looked up through the runtime's entry-point query:
// the library links the runtime statically and never libcuda directly, so it
// still loads on machines without a driver (src/CMakeLists.txt).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "ipc/shared_memory_impl.hpp"

namespace zarrgpu::ipc {

struct CudaDriver {
  CUresult (*mem_get_address_range)(CUdeviceptr*, size_t*, CUdeviceptr) = nullptr;
  CUresult (*mem_get_allocation_granularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags) = nullptr;
  CUresult (*mem_create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long) = nullptr;
  CUresult (*mem_release)(CUmemGenericAllocationHandle) = nullptr;
  CUresult (*mem_export_to_shareable_handle)(void*, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long) = nullptr;
  CUresult (*mem_import_from_shareable_handle)(CUmemGenericAllocationHandle*, void*, CUmemAllocationHandleType) = nullptr;
  CUresult (*mem_get_allocation_properties_from_handle)(CUmemAllocationProp*, CUmemGenericAllocationHandle) = nullptr;
  CUresult (*mem_address_reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
  CUresult (*mem_address_free)(CUdeviceptr, size_t) = nullptr;
  CUresult (*mem_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) = nullptr;
  CUresult (*mem_unmap)(CUdeviceptr, size_t) = nullptr;
  CUresult (*mem_set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
};

// The driver's functions, looked up once; Error(device) when one is missing.
const CudaDriver& cuda_driver();
// Throws Error(device) "what: CUDA_ERROR_…" unless `r` is CUDA_SUCCESS.
void check_driver(CUresult r, const char* what);
void check_runtime(cudaError_t r, const char* what);

// Makes `device` current for the scope, restoring the caller's after.
class CurrentDevice {
 public:
  explicit CurrentDevice(int device);
  ~CurrentDevice();
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int previous_ = 0;
};

// The index of the device with this UUID ("GPU-…"), or -1: device indices
// differ between processes when CUDA_VISIBLE_DEVICES does.
int device_with_uuid(const std::string& uuid);

}  // namespace zarrgpu::ipc

namespace zarrgpu::ipc {

// An interprocess event on the current device (cudaEventInterprocess), kept by
// the exporter; record() returns the handle (hex) an importer waits on.
class IpcEvent {
 public:
  explicit IpcEvent(int device);
  ~IpcEvent();
  IpcEvent(const IpcEvent&) = delete;
  IpcEvent& operator=(const IpcEvent&) = delete;
  std::string record(void* stream);

 private:
  int device_;
  cudaEvent_t event_ = nullptr;
};

// A synchronous copy between device memory on `device` and the host.
void copy_device(int device, void* device_ptr, void* host, std::size_t n, bool to_host);

// Opens an event handle (hex) and waits on the host until it has happened.
void wait_ipc_event(const std::string& handle_hex);

// Device memory exported as a POSIX file descriptor (cuda_vmm_memory.cpp).
std::shared_ptr<SharedMemory::Impl> create_vmm_memory(std::size_t bytes, Device device);
std::shared_ptr<SharedMemory::Impl> open_vmm_memory(const Descriptor& d, int device, int fd);

}  // namespace zarrgpu::ipc
