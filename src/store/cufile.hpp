// cuFile (GPUDirect Storage), loaded at run time: no link dependency, so the
// library loads on machines without it. We declare the few entry points and
// structs we use ourselves (their C ABI is stable since CUDA 11.4).
//
// A machine has "true" GDS when the nvidia-fs kernel driver is loaded
// (/proc/driver/nvidia-fs); otherwise cuFile runs in compatibility mode,
// which reads through POSIX into its own bounce buffers and then copies to
// the GPU — usually slower than our pread into pinned memory plus one copy
// per batch. Like KvikIO, we always say which of the two ran.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>

namespace zarrgpu::store {

class CuFile {
 public:
  // The process-wide instance: dlopen("libcufile.so.0"), then "libcufile.so",
  // and cuFileDriverOpen on first use. available() is false when either failed
  // (why() says which).
  static CuFile& instance();

  // Whether the nvidia-fs kernel driver is loaded (true GDS possible), without
  // loading or opening cuFile.
  static bool nvidia_fs_present() noexcept;

  bool available() const noexcept { return open_; }
  // True GPUDirect Storage (nvidia-fs present); false: compatibility mode.
  bool true_gds() const noexcept { return true_gds_; }
  const std::string& why() const noexcept { return why_; }

  // A registered file, closed and deregistered on destruction.
  class File {
   public:
    File(CuFile& lib, const std::string& path);
    ~File();
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    // Reads [offset, offset + bytes) of the file into device memory `dst`;
    // throws Error(io) on a failure or a short read.
    void read(void* dst, std::size_t bytes, std::uint64_t offset) const;

   private:
    CuFile& lib_;
    std::string path_;
    int fd_ = -1;
    void* handle_ = nullptr;
  };

 private:
  CuFile();
  ~CuFile();

  struct Api;
  Api* api_ = nullptr;
  void* dl_ = nullptr;
  bool open_ = false;
  bool true_gds_ = false;
  std::string why_;
};

}  // namespace zarrgpu::store
