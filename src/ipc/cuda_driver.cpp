#include "ipc/cuda_driver.hpp"

#include <cstdio>
#include <mutex>
#include <string>
#include <tuple>

#include "zarrgpu/error.hpp"
#include "zarrgpu/ipc.hpp"

namespace zarrgpu::ipc {
namespace {

template <class F>
void lookup(const char* symbol, F& fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  // The versioned query: the ABI of each function as of CUDA 12.0 (cuMemGetAddressRange_v2).
  cudaError_t r = cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &found);
#else
  cudaError_t r = cudaGetDriverEntryPoint(symbol, &p, cudaEnableDefault, &found);
#endif
  if (r != cudaSuccess || found != cudaDriverEntryPointSuccess || !p)
    throw Error(ErrorKind::device, std::string("the CUDA driver has no ") + symbol + " (" + cudaGetErrorName(r) + ")");
  fn = reinterpret_cast<F>(p);
}

// A driver symbol and the CudaDriver field that holds it.
template <class F>
struct Entry {
  const char* symbol;
  F CudaDriver::*field;
};
template <class F>
Entry(const char*, F CudaDriver::*) -> Entry<F>;  // for compilers without aggregate deduction

constexpr std::tuple kDriverEntries{
    Entry{"cuMemGetAddressRange", &CudaDriver::mem_get_address_range},
    Entry{"cuMemGetAllocationGranularity", &CudaDriver::mem_get_allocation_granularity},
    Entry{"cuMemCreate", &CudaDriver::mem_create},
    Entry{"cuMemRelease", &CudaDriver::mem_release},
    Entry{"cuMemExportToShareableHandle", &CudaDriver::mem_export_to_shareable_handle},
    Entry{"cuMemImportFromShareableHandle", &CudaDriver::mem_import_from_shareable_handle},
    Entry{"cuMemGetAllocationPropertiesFromHandle", &CudaDriver::mem_get_allocation_properties_from_handle},
    Entry{"cuMemAddressReserve", &CudaDriver::mem_address_reserve},
    Entry{"cuMemAddressFree", &CudaDriver::mem_address_free},
    Entry{"cuMemMap", &CudaDriver::mem_map},
    Entry{"cuMemUnmap", &CudaDriver::mem_unmap},
    Entry{"cuMemSetAccess", &CudaDriver::mem_set_access},
};

}  // namespace

const CudaDriver& cuda_driver() {
  static CudaDriver driver;
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    try {
      std::apply([](auto... entry) { (lookup(entry.symbol, driver.*entry.field), ...); }, kDriverEntries);
    } catch (const Error& e) {
      failure = e.cause();
    }
  });
  if (!failure.empty()) throw Error(ErrorKind::device, failure);
  return driver;
}

void check_driver(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  // Said as the runtime's allocation failures are (gpu/cuda_check.cpp).
  const char* oom = r == CUDA_ERROR_OUT_OF_MEMORY ? "out of GPU memory: " : "";
  throw Error(ErrorKind::device, oom + std::string(what) + ": CUresult " + std::to_string(int(r)));
}

void check_runtime(cudaError_t r, const char* what) {
  if (r != cudaSuccess)
    throw Error(ErrorKind::device, std::string(what) + ": " + cudaGetErrorName(r) + " (" + cudaGetErrorString(r) + ")");
}

CurrentDevice::CurrentDevice(int device) {
  require_cuda_device(Device::cuda(device));
  check_runtime(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) check_runtime(cudaSetDevice(device), "cudaSetDevice");
  // The driver calls below need the device's primary context to exist.
  check_runtime(cudaFree(nullptr), "initialising the CUDA context");
}

CurrentDevice::~CurrentDevice() { cudaSetDevice(previous_); }

std::string device_uuid(Device device) {
  require_cuda_device(device);
  cudaDeviceProp prop{};
  check_runtime(cudaGetDeviceProperties(&prop, device.index), "cudaGetDeviceProperties");
  const auto* b = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
  char text[48];
  std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

void copy_device(int device, void* device_ptr, void* host, std::size_t n, bool to_host) {
  CurrentDevice on(device);
  check_runtime(to_host ? cudaMemcpy(host, device_ptr, n, cudaMemcpyDeviceToHost)
                        : cudaMemcpy(device_ptr, host, n, cudaMemcpyHostToDevice),
                "cudaMemcpy (shared device memory)");
}

int device_with_uuid(const std::string& uuid) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return -1;
  for (int i = 0; i < n; ++i)
    if (device_uuid(Device::cuda(i)) == uuid) return i;
  return -1;
}

}  // namespace zarrgpu::ipc
