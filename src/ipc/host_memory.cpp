// Host memory shared as a sealed memfd (memfd_create(2)). The seals forbid
// shrinking or growing the file, so a mapping of it never faults (SIGBUS) however
// the exporter or another importer behaves; an importer checks them, and the
// size, before mapping.
#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipc/shared_memory_impl.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {
namespace {

std::string os_error(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

struct HostMemory final : SharedMemory::Impl {
  ~HostMemory() override {
    if (data && data != MAP_FAILED) munmap(data, size ? size : 1);
    if (fd >= 0) close(fd);
  }
};

void map(HostMemory& m, bool writable) {
  m.writable = writable;
  if (m.size == 0) return;  // nothing to map: data stays null
  void* p = mmap(nullptr, m.size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, m.fd, 0);
  if (p == MAP_FAILED) throw Error(ErrorKind::io, os_error("mmap of a shared host allocation"));
  m.data = p;
}

}  // namespace

std::shared_ptr<SharedMemory::Impl> create_host_memory(std::size_t bytes, std::string_view name) {
  auto m = std::make_shared<HostMemory>();
  m->device = Device::cpu();
  m->kind = HandleKind::memfd;
  m->fd = memfd_create(std::string(name).c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (m->fd < 0) throw Error(ErrorKind::io, os_error("memfd_create"));
  if (ftruncate(m->fd, static_cast<off_t>(bytes)) != 0)
    throw Error(ErrorKind::io, os_error(("ftruncate of a memfd to " + std::to_string(bytes) + " bytes").c_str()));
  if (fcntl(m->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    throw Error(ErrorKind::io, os_error("sealing a memfd"));
  m->size = bytes;
  map(*m, true);
  return m;
}

std::shared_ptr<SharedMemory::Impl> open_host_memory(const Descriptor& d, int fd) {
  if (fd < 0) throw Error(ErrorKind::invalid_argument, "IPC descriptor: a memfd handle needs its file descriptor");
  const int seals = fcntl(fd, F_GET_SEALS);
  if (seals < 0)
    throw Error(ErrorKind::invalid_argument, "IPC descriptor: the file descriptor is not a memfd (" + os_error("F_GET_SEALS") + ")");
  if ((seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
    throw Error(ErrorKind::invalid_argument, "IPC descriptor: the memfd is not sealed against resizing");
  struct stat st{};
  if (fstat(fd, &st) != 0) throw Error(ErrorKind::io, os_error("fstat of a memfd"));
  if (static_cast<std::uint64_t>(st.st_size) != d.allocation_size)
    throw Error(ErrorKind::invalid_argument, "IPC descriptor: allocation_size " + std::to_string(d.allocation_size) +
                                                 " but the memfd holds " + std::to_string(st.st_size) + " bytes");
  const int mode = fcntl(fd, F_GETFL);
  const bool writable = !d.read_only && (mode & O_ACCMODE) == O_RDWR;
  auto m = std::make_shared<HostMemory>();
  m->device = Device::cpu();
  m->kind = HandleKind::memfd;
  m->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (m->fd < 0) throw Error(ErrorKind::io, os_error("dup of a memfd"));
  m->size = d.allocation_size;
  map(*m, writable);
  return m;
}

}  // namespace zarrgpu::ipc
