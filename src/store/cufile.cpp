#include "store/cufile.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "zarrgpu/error.hpp"

namespace zarrgpu::store {
namespace {

// cufile.h, the subset we use.
struct CUfileError_t {
  int err;     // CUfileOpError; 0 = CU_FILE_SUCCESS
  int cu_err;  // CUresult
};
constexpr int kHandleTypeOpaqueFd = 1;  // CU_FILE_HANDLE_TYPE_OPAQUE_FD
struct CUfileDescr_t {
  int type;
  union {
    int fd;
    void* handle;
  } handle;
  const void* fs_ops;
};

}  // namespace

struct CuFile::Api {
  CUfileError_t (*driver_open)();
  CUfileError_t (*driver_close)();
  CUfileError_t (*handle_register)(void** fh, CUfileDescr_t* descr);
  void (*handle_deregister)(void* fh);
  ssize_t (*read)(void* fh, void* buf, std::size_t size, off_t file_offset, off_t buf_offset);
};

bool CuFile::nvidia_fs_present() noexcept {
  std::error_code ec;
  return std::filesystem::exists("/proc/driver/nvidia-fs", ec);
}

CuFile& CuFile::instance() {
  static CuFile lib;
  return lib;
}

CuFile::CuFile() {
  for (const char* name : {"libcufile.so.0", "libcufile.so"}) {
    dl_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (dl_) break;
  }
  if (!dl_) {
    why_ = "libcufile.so.0 not found";
    return;
  }
  auto api = new Api{};
  auto sym = [this](const char* n) { return dlsym(dl_, n); };
  api->driver_open = reinterpret_cast<decltype(api->driver_open)>(sym("cuFileDriverOpen"));
  api->driver_close = reinterpret_cast<decltype(api->driver_close)>(sym("cuFileDriverClose"));
  api->handle_register = reinterpret_cast<decltype(api->handle_register)>(sym("cuFileHandleRegister"));
  api->handle_deregister = reinterpret_cast<decltype(api->handle_deregister)>(sym("cuFileHandleDeregister"));
  api->read = reinterpret_cast<decltype(api->read)>(sym("cuFileRead"));
  api_ = api;
  if (!api->driver_open || !api->driver_close || !api->handle_register || !api->handle_deregister || !api->read) {
    why_ = "libcufile lacks cuFileDriverOpen/cuFileHandleRegister/cuFileRead";
    return;
  }
  const CUfileError_t e = api->driver_open();
  if (e.err != 0) {
    why_ = "cuFileDriverOpen failed (error " + std::to_string(e.err) + ")";
    return;
  }
  open_ = true;
  true_gds_ = nvidia_fs_present();
  why_ = true_gds_ ? "nvidia-fs loaded: GPUDirect Storage" : "no nvidia-fs driver: cuFile compatibility mode";
}

CuFile::~CuFile() {
  // The driver is closed at exit only; the CUDA context may already be gone,
  // so a failure is ignored.
  if (open_) api_->driver_close();
  delete api_;
  // dl_ stays loaded: cuFile registers its own atexit handlers.
}

CuFile::File::File(CuFile& lib, const std::string& path) : lib_(lib), path_(path) {
  if (!lib.open_) throw Error(ErrorKind::io, "cuFile is not available: " + lib.why_);
  // O_DIRECT is what true GDS wants; compatibility mode and file systems
  // that refuse it take a plain descriptor.
  fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd_ < 0) fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(ErrorKind::io, "open '" + path + "': " + std::strerror(errno));
  CUfileDescr_t d{};
  d.type = kHandleTypeOpaqueFd;
  d.handle.fd = fd_;
  const CUfileError_t e = lib.api_->handle_register(&handle_, &d);
  if (e.err != 0) {
    ::close(fd_);
    throw Error(ErrorKind::io, "cuFileHandleRegister '" + path + "' failed (error " + std::to_string(e.err) + ")");
  }
}

CuFile::File::~File() {
  if (handle_) lib_.api_->handle_deregister(handle_);
  if (fd_ >= 0) ::close(fd_);
}

void CuFile::File::read(void* dst, std::size_t bytes, std::uint64_t offset) const {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = lib_.api_->read(handle_, dst, bytes - done, static_cast<off_t>(offset + done),
                                      static_cast<off_t>(done));
    if (n < 0) throw Error(ErrorKind::io, "cuFileRead '" + path_ + "' failed (" + std::to_string(n) + ")");
    if (n == 0) throw Error(ErrorKind::io, "cuFileRead '" + path_ + "': short read at " + std::to_string(offset + done));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace zarrgpu::store
