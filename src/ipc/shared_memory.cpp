// SharedMemory: what the three kinds of shared memory have in common, and
// descriptors of views of it.
#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "ipc/shared_memory_impl.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {

SharedMemory SharedMemory::create_host(std::size_t bytes, std::string_view name) {
  return SharedMemory(create_host_memory(bytes, name));
}

SharedMemory SharedMemory::create_device(std::size_t bytes, Device device, bool vmm) {
  if (device.kind != Device::Kind::cuda) throw Error(ErrorKind::invalid_argument, "device memory needs a cuda device");
  return SharedMemory(create_device_memory(bytes, device, vmm));
}

SharedMemory SharedMemory::open(const Descriptor& d, int fd) {
  validate(d);
  if (d.device.kind == Device::Kind::cpu) return SharedMemory(open_host_memory(d, fd));
  return SharedMemory(open_device_memory(d, fd));
}

void* SharedMemory::data() const noexcept { return impl_ ? impl_->data : nullptr; }
std::size_t SharedMemory::size() const noexcept { return impl_ ? impl_->size : 0; }
Device SharedMemory::device() const noexcept { return impl_ ? impl_->device : Device::cpu(); }
HandleKind SharedMemory::handle_kind() const noexcept { return impl_ ? impl_->kind : HandleKind::memfd; }
bool SharedMemory::writable() const noexcept { return impl_ && impl_->writable; }
int SharedMemory::fd() const noexcept { return impl_ ? impl_->fd : -1; }

int SharedMemory::reopen_read_only() const {
  if (!impl_ || impl_->kind != HandleKind::memfd || impl_->fd < 0)
    throw Error(ErrorKind::invalid_argument, "only host (memfd) memory can be reopened read-only");
  // A new open file description through procfs: O_RDONLY there, so a reader
  // given it cannot map the memory writable (a dup would share O_RDWR).
  const std::string path = "/proc/self/fd/" + std::to_string(impl_->fd);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorKind::io, "reopening a memfd read-only: " + std::string(std::strerror(errno)));
  return fd;
}

void SharedMemory::Impl::copy(std::size_t offset, void* host, std::size_t n, bool to_host) const {
  auto* p = static_cast<std::byte*>(data) + offset;
  if (to_host) std::memcpy(host, p, n);
  else std::memcpy(p, host, n);
}

namespace {
void check_range(const SharedMemory& m, std::size_t offset, std::size_t n) {
  if (!m.valid()) throw Error(ErrorKind::invalid_argument, "copying from an empty SharedMemory");
  if (offset > m.size() || n > m.size() - offset)
    throw Error(ErrorKind::invalid_argument, "copy of " + std::to_string(n) + " bytes at " + std::to_string(offset) +
                                                 " past the shared allocation of " + std::to_string(m.size()) + " bytes");
}
}  // namespace

void SharedMemory::copy_out(std::size_t offset, void* dst, std::size_t n) const {
  check_range(*this, offset, n);
  if (n) impl_->copy(offset, dst, n, true);
}

void SharedMemory::copy_in(std::size_t offset, const void* src, std::size_t n) const {
  check_range(*this, offset, n);
  if (!impl_->writable) throw Error(ErrorKind::invalid_argument, "the shared memory is read-only here");
  if (n) impl_->copy(offset, const_cast<void*>(src), n, false);
}

Descriptor SharedMemory::describe(DataType t, std::vector<std::uint64_t> shape, std::uint64_t byte_offset,
                                  std::vector<std::int64_t> strides, bool record_event, void* stream) const {
  if (!impl_) throw Error(ErrorKind::invalid_argument, "describing an empty SharedMemory");
  Descriptor d;
  d.data_type = t;
  if (strides.empty()) strides = contiguous_strides(shape, t);
  d.shape = std::move(shape);
  d.strides = std::move(strides);
  d.byte_offset = byte_offset;
  d.allocation_size = impl_->size;
  d.device = impl_->device;
  d.device_uuid = impl_->device_uuid;
  d.handle_kind = impl_->kind;
  d.handle = impl_->handle_hex();
  d.read_only = !impl_->writable;
  if (record_event) d.event = impl_->record_event(stream);
  validate(d);
  return d;
}

}  // namespace zarrgpu::ipc
