// What a SharedMemory holds: one mapping of a shared allocation, host or device.
// Each kind of memory (host_memory.cpp, cuda_ipc_memory.cpp, cuda_vmm_memory.cpp)
// derives from it and releases its mapping in its destructor.
#pragma once

#include <string>

#include "zarrgpu/ipc.hpp"

namespace zarrgpu::ipc {

struct SharedMemory::Impl {
  virtual ~Impl() = default;
  void* data = nullptr;
  std::size_t size = 0;
  Device device;
  std::string device_uuid;
  HandleKind kind = HandleKind::memfd;
  bool writable = true;
  int fd = -1;  // memfd or VMM export handle, owned here; -1 for cuda_ipc

  // cuda_ipc: the handle of the allocation in hex (exports only; "" for imports).
  virtual std::string handle_hex() const { return {}; }
  // Device memory: an event recorded on `stream`, as IPC handle hex.
  virtual std::string record_event(void* stream) const { (void)stream; return {}; }
  // Copies `n` bytes at `offset` of this memory to or from the host (bounds checked by the caller).
  virtual void copy(std::size_t offset, void* host, std::size_t n, bool to_host) const;
};

// Host memory (host_memory.cpp).
std::shared_ptr<SharedMemory::Impl> create_host_memory(std::size_t bytes, std::string_view name);
std::shared_ptr<SharedMemory::Impl> open_host_memory(const Descriptor& d, int fd);
// Device memory (cuda_ipc_memory.cpp and cuda_vmm_memory.cpp with CUDA, no_cuda.cpp without).
std::shared_ptr<SharedMemory::Impl> create_device_memory(std::size_t bytes, Device device, bool vmm);
std::shared_ptr<SharedMemory::Impl> open_device_memory(const Descriptor& d, int fd);

}  // namespace zarrgpu::ipc
