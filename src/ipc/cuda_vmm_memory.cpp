// Device memory from the CUDA virtual-memory API (cuMemCreate), exported as a
// POSIX file descriptor (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR): the
// mechanism of PyTorch's expandable segments. The descriptor travels over a
// Unix socket (SCM_RIGHTS); the importer maps it into its own address range.
#include <cstdint>
#include <mutex>
#include <string>

#include <unistd.h>

#include "ipc/cuda_driver.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {
namespace {

CUmemAllocationProp properties(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

struct VmmMemory final : SharedMemory::Impl {
  void copy(std::size_t offset, void* host, std::size_t n, bool to_host) const override {
    copy_device(device.index, static_cast<std::byte*>(data) + offset, host, n, to_host);
  }
  CUmemGenericAllocationHandle handle = 0;
  std::size_t reserved = 0;  // bytes of address range reserved at data
  std::size_t mapped = 0;    // of which mapped
  mutable std::mutex event_mutex;
  mutable std::unique_ptr<IpcEvent> event;

  ~VmmMemory() override {
    event.reset();
    const CudaDriver& drv = cuda_driver();
    auto ptr = reinterpret_cast<CUdeviceptr>(data);
    if (mapped) drv.mem_unmap(ptr, mapped);
    if (reserved) drv.mem_address_free(ptr, reserved);
    if (handle) drv.mem_release(handle);
    if (fd >= 0) close(fd);
  }
  std::string record_event(void* stream) const override {
    std::lock_guard lock(event_mutex);
    if (!event) event = std::make_unique<IpcEvent>(device.index);
    return event->record(stream);
  }

  // Reserves an address range of `bytes` and maps the allocation there, readable
  // (and writable when `writable`: the driver enforces a read-only import) on `index`.
  void map(std::size_t bytes, int index) {
    const CudaDriver& drv = cuda_driver();
    CUdeviceptr ptr = 0;
    check_driver(drv.mem_address_reserve(&ptr, bytes, 0, 0, 0), "cuMemAddressReserve");
    data = reinterpret_cast<void*>(ptr);
    reserved = bytes;
    const CUresult r = drv.mem_map(ptr, bytes, 0, handle, 0);
    if (r != CUDA_SUCCESS) {
      throw Error(ErrorKind::invalid_argument, "IPC descriptor: mapping " + std::to_string(bytes) +
                                                   " bytes of the shared allocation failed (CUresult " + std::to_string(int(r)) +
                                                   "): allocation_size exceeds it");
    }
    mapped = bytes;
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = index;
    access.flags = writable ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_READ;
    check_driver(drv.mem_set_access(ptr, bytes, &access, 1), "cuMemSetAccess");
  }
};

}  // namespace

std::shared_ptr<SharedMemory::Impl> create_vmm_memory(std::size_t bytes, Device device) {
  CurrentDevice on(device.index);
  const CudaDriver& drv = cuda_driver();
  const CUmemAllocationProp prop = properties(device.index);
  size_t granularity = 0;
  check_driver(drv.mem_get_allocation_granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
               "cuMemGetAllocationGranularity");
  const std::size_t size = ((bytes ? bytes : 1) + granularity - 1) / granularity * granularity;
  auto m = std::make_shared<VmmMemory>();
  m->device = device;
  m->device_uuid = device_uuid(device);
  m->kind = HandleKind::fd;
  check_driver(drv.mem_create(&m->handle, size, &prop, 0), ("cuMemCreate of " + std::to_string(size) + " bytes").c_str());
  m->map(size, device.index);
  m->size = size;
  int fd = -1;
  check_driver(drv.mem_export_to_shareable_handle(&fd, m->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
               "cuMemExportToShareableHandle");
  m->fd = fd;
  check_runtime(cudaMemset(m->data, 0, size), "cudaMemset");
  check_runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return m;
}

std::shared_ptr<SharedMemory::Impl> open_vmm_memory(const Descriptor& d, int index, int fd) {
  if (fd < 0) throw Error(ErrorKind::invalid_argument, "IPC descriptor: an fd handle needs its file descriptor");
  const CudaDriver& drv = cuda_driver();
  auto m = std::make_shared<VmmMemory>();
  m->device = Device::cuda(index);
  m->device_uuid = d.device_uuid;
  m->kind = HandleKind::fd;
  m->writable = !d.read_only;
  const CUresult r = drv.mem_import_from_shareable_handle(
      &m->handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(fd)), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  if (r != CUDA_SUCCESS)
    throw Error(ErrorKind::not_found, "IPC descriptor: the file descriptor is not a CUDA allocation (CUresult " +
                                          std::to_string(int(r)) + ")");
  CUmemAllocationProp prop{};
  check_driver(drv.mem_get_allocation_properties_from_handle(&prop, m->handle), "cuMemGetAllocationPropertiesFromHandle");
  if (prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE || prop.location.id != index)
    throw Error(ErrorKind::invalid_argument, "IPC descriptor: the allocation lives on another device than " + d.device_uuid);
  // cuMemMap refuses a range past the allocation's end: a descriptor claiming more fails here.
  m->map(d.allocation_size ? d.allocation_size : 1, index);
  m->size = d.allocation_size;
  return m;
}

}  // namespace zarrgpu::ipc
