// Device memory in a build without the CUDA path: every use is Error(device).
#include "ipc/shared_memory_impl.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {
namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw Error(ErrorKind::device, std::string(what) + ": this build of zarrgpu has no CUDA path (built with ZARRGPU_CUDA=OFF or without nvcc)");
}
}  // namespace

std::shared_ptr<SharedMemory::Impl> create_device_memory(std::size_t, Device, bool) { no_cuda("allocating shareable device memory"); }
std::shared_ptr<SharedMemory::Impl> open_device_memory(const Descriptor&, int) { no_cuda("opening shared device memory"); }
Descriptor export_device_pointer(const void*, DataType, std::vector<std::uint64_t>, std::vector<std::int64_t>, Device, void*) {
  no_cuda("exporting device memory");
}
std::string device_uuid(Device) { no_cuda("a device's UUID"); }

}  // namespace zarrgpu::ipc
