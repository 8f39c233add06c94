// Device memory shared through legacy CUDA IPC handles (cudaIpcGetMemHandle):
// cudaMalloc allocations, a read's output included. An importer opens the
// handle (cudaIpcOpenMemHandle), which maps the exporter's whole allocation;
// the descriptor's offset and strides select the view. Opening fails cleanly
// for a handle whose allocation is gone or that was never one (forged).
#include <mutex>
#include <string>

#include "ipc/cuda_driver.hpp"
#include "ipc/hex.hpp"
#include "ipc/shared_memory_impl.hpp"
#include "zarrgpu/device.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {
namespace {

struct CudaMallocMemory final : SharedMemory::Impl {
  void copy(std::size_t offset, void* host, std::size_t n, bool to_host) const override {
    copy_device(device.index, static_cast<std::byte*>(data) + offset, host, n, to_host);
  }
  cudaIpcMemHandle_t handle{};
  mutable std::mutex event_mutex;
  mutable std::unique_ptr<IpcEvent> event;
  ~CudaMallocMemory() override {
    event.reset();
    if (!data) return;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device.index);
    cudaFree(data);
    cudaSetDevice(previous);
  }
  std::string handle_hex() const override { return to_hex(&handle, sizeof handle); }
  std::string record_event(void* stream) const override {
    std::lock_guard lock(event_mutex);
    if (!event) event = std::make_unique<IpcEvent>(device.index);
    return event->record(stream);
  }
};

struct OpenedIpcMemory final : SharedMemory::Impl {
  std::string handle;  // as the descriptor gave it: views of this memory are exported with it
  std::string handle_hex() const override { return handle; }
  void copy(std::size_t offset, void* host, std::size_t n, bool to_host) const override {
    copy_device(device.index, static_cast<std::byte*>(data) + offset, host, n, to_host);
  }
  ~OpenedIpcMemory() override {
    if (!data) return;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device.index);
    cudaIpcCloseMemHandle(data);
    cudaSetDevice(previous);
  }
};

}  // namespace

IpcEvent::IpcEvent(int device) : device_(device) {
  CurrentDevice on(device);
  check_runtime(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming | cudaEventInterprocess),
                "cudaEventCreateWithFlags(cudaEventInterprocess)");
}

IpcEvent::~IpcEvent() {
  if (event_) cudaEventDestroy(event_);
}

std::string IpcEvent::record(void* stream) {
  CurrentDevice on(device_);
  check_runtime(cudaEventRecord(event_, static_cast<cudaStream_t>(stream)), "cudaEventRecord");
  cudaIpcEventHandle_t h{};
  check_runtime(cudaIpcGetEventHandle(&h, event_), "cudaIpcGetEventHandle");
  return to_hex(&h, sizeof h);
}

void wait_ipc_event(const std::string& handle_hex) {
  cudaIpcEventHandle_t h{};
  if (!from_hex(handle_hex, &h, sizeof h)) throw Error(ErrorKind::invalid_argument, "IPC descriptor: malformed event handle");
  cudaEvent_t e = nullptr;
  if (cudaIpcOpenEventHandle(&e, h) != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it for the caller's next call
    throw Error(ErrorKind::not_found, "IPC descriptor: the event handle does not open (its exporter is gone, or it is forged)");
  }
  const cudaError_t r = cudaEventSynchronize(e);
  cudaEventDestroy(e);
  check_runtime(r, "waiting on an IPC event");
}

std::shared_ptr<SharedMemory::Impl> create_device_memory(std::size_t bytes, Device device, bool vmm) {
  if (vmm) return create_vmm_memory(bytes, device);
  CurrentDevice on(device.index);
  auto m = std::make_shared<CudaMallocMemory>();
  m->device = device;
  m->device_uuid = device_uuid(device);
  m->kind = HandleKind::cuda_ipc;
  check_runtime(cudaMalloc(&m->data, bytes ? bytes : 1), ("cudaMalloc of " + std::to_string(bytes) + " bytes").c_str());
  m->size = bytes;
  check_runtime(cudaMemset(m->data, 0, bytes), "cudaMemset");
  check_runtime(cudaIpcGetMemHandle(&m->handle, m->data), "cudaIpcGetMemHandle");
  return m;
}

std::shared_ptr<SharedMemory::Impl> open_device_memory(const Descriptor& d, int fd) {
  // Without a usable GPU no UUID can match: say that, as every other device use does,
  // rather than that this one device is missing.
  if (!cuda_available())
    throw Error(ErrorKind::device, "IPC descriptor: device memory, and this process sees no usable CUDA device");
  // The exporter's index may not be ours (CUDA_VISIBLE_DEVICES): go by the UUID.
  const int index = device_with_uuid(d.device_uuid);
  if (index < 0) throw Error(ErrorKind::not_found, "IPC descriptor: no visible CUDA device has UUID " + d.device_uuid);
  CurrentDevice on(index);
  if (!d.event.empty()) wait_ipc_event(d.event);
  if (d.handle_kind == HandleKind::fd) return open_vmm_memory(d, index, fd);
  cudaIpcMemHandle_t h{};
  if (!from_hex(d.handle, &h, sizeof h)) throw Error(ErrorKind::invalid_argument, "IPC descriptor: malformed cuda_ipc handle");
  auto m = std::make_shared<OpenedIpcMemory>();
  m->device = Device::cuda(index);
  m->device_uuid = d.device_uuid;
  m->kind = HandleKind::cuda_ipc;
  m->handle = d.handle;
  m->writable = !d.read_only;
  const cudaError_t r = cudaIpcOpenMemHandle(&m->data, h, cudaIpcMemLazyEnablePeerAccess);
  if (r != cudaSuccess) {
    m->data = nullptr;
    cudaGetLastError();
    if (r == cudaErrorMemoryAllocation) check_runtime(r, "cudaIpcOpenMemHandle");
    throw Error(ErrorKind::not_found, std::string("IPC descriptor: the cuda_ipc handle does not open (") + cudaGetErrorName(r) +
                                          "): its allocation is gone, it is forged, or it was exported by this process");
  }
  // The handle maps the exporter's whole allocation: its true size bounds the view,
  // whatever allocation_size the descriptor claims.
  CUdeviceptr base = 0;
  size_t size = 0;
  check_driver(cuda_driver().mem_get_address_range(&base, &size, reinterpret_cast<CUdeviceptr>(m->data)), "cuMemGetAddressRange");
  if (d.allocation_size > size)
    throw Error(ErrorKind::invalid_argument, "IPC descriptor: allocation_size " + std::to_string(d.allocation_size) +
                                                 " exceeds the shared allocation's " + std::to_string(size) + " bytes");
  m->size = d.allocation_size;
  return m;
}

Descriptor export_device_pointer(const void* data, DataType t, std::vector<std::uint64_t> shape,
                                 std::vector<std::int64_t> strides, Device device, void* stream) {
  CurrentDevice on(device.index);
  CUdeviceptr base = 0;
  size_t size = 0;
  check_driver(cuda_driver().mem_get_address_range(&base, &size, reinterpret_cast<CUdeviceptr>(data)),
               "cuMemGetAddressRange (exporting device memory)");
  cudaIpcMemHandle_t h{};
  check_runtime(cudaIpcGetMemHandle(&h, reinterpret_cast<void*>(base)),
                "cudaIpcGetMemHandle (memory from cudaMalloc only; not cudaMallocAsync pools)");
  Descriptor d;
  d.data_type = t;
  d.strides = strides.empty() ? contiguous_strides(shape, t) : std::move(strides);
  d.shape = std::move(shape);
  d.byte_offset = reinterpret_cast<CUdeviceptr>(data) - base;
  d.allocation_size = size;
  d.device = device;
  d.device_uuid = device_uuid(device);
  d.handle_kind = HandleKind::cuda_ipc;
  d.handle = to_hex(&h, sizeof h);
  // The caller's stream may still be writing the array: importers wait on this.
  // One event per process and device is enough (recorded again by each export):
  // an importer waits for at least the work before its export.
  static std::mutex mutex;
  static std::unique_ptr<IpcEvent> events[64];
  if (device.index < 64) {
    std::lock_guard lock(mutex);
    auto& e = events[device.index];
    if (!e) e = std::make_unique<IpcEvent>(device.index);
    d.event = e->record(stream);
  } else {
    check_runtime(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
  }
  validate(d);
  return d;
}

}  // namespace zarrgpu::ipc
