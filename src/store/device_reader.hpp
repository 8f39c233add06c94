// Reading byte ranges of stored values straight into device memory: a
// capability a store may add beside Store (LocalStore: cuFile, GPUDirect
// Storage). The device read path asks the store which path its reads take
// and, where the store reads into device memory itself, hands it batches of
// ranges; otherwise it reads through Store::read into pinned staging memory
// and copies once per batch. The engine never opens files or parses URLs.
//
//   posix       Store::read into the pinned staging ring, one host-to-device
//               copy per batch (the default where GDS is only emulated)
//   gds         cuFile with nvidia-fs: storage DMA straight into GPU memory
//   gds-compat  cuFile in compatibility mode (POSIX inside cuFile)
//
// Config::io (ZARRGPU_IO=auto|posix|gds|gds-compat) forces one; auto takes gds
// when true GDS is present and the store can use it, posix otherwise
// (compatibility mode reads through cuFile's small bounce buffers and is
// slower than the ring). Forcing gds on a machine without nvidia-fs runs
// gds-compat and says so.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "zarrgpu/config.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::store {

enum class IoPath { posix, gds, gds_compat };
// The request in force: config().io.
IoMode io_request();
const char* to_string(IoPath p) noexcept;

// The path a request resolves to: `cufile_ok` whether cuFile opened,
// `true_gds` whether nvidia-fs is there, `local` whether the store reads files.
IoPath resolve_io_path(IoMode request, bool cufile_ok, bool true_gds, bool local) noexcept;

struct DeviceReadPath {
  IoPath path = IoPath::posix;
  std::string why;  // for the read report
};

// One range of a stored value and the device memory it lands in.
struct DeviceReadInto {
  std::string_view key;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  void* device = nullptr;
};

class DeviceReader {
 public:
  virtual ~DeviceReader() = default;
  // The path reads into device memory take under `request`.
  virtual DeviceReadPath device_read_path(IoMode request) = 0;
  // Reads every range into its device memory (only when device_read_path
  // chose gds or gds-compat). Throws Error(io) naming the key; a range past
  // the end of its value is Error(io).
  virtual void read_into_device(std::span<const DeviceReadInto> reads) = 0;
};

// The path for `store`: its own, or posix for stores without the capability.
DeviceReadPath device_read_path(Store& store, IoMode request);

}  // namespace zarrgpu::store
