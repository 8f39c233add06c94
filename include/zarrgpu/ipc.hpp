// Sharing arrays between processes and languages without a copy (docs/ipc.md).
//
// An exported array is described by a small JSON document, the descriptor:
// its data type, shape, strides, where it lies in a shared allocation, the
// device, and the allocation's shareable handle. Three kinds of handle:
//   cuda_ipc  a legacy CUDA IPC memory handle (cudaIpcGetMemHandle), as hex in
//             the descriptor: any process of the same user on the machine may open it;
//   fd        a CUDA virtual-memory allocation (cuMemCreate) exported as a POSIX
//             file descriptor, which travels beside the descriptor (SCM_RIGHTS);
//   memfd     host memory in a sealed memfd, likewise passed as a descriptor.
// Slices export the base allocation plus a byte offset and strides, as CUDA IPC
// and DLPack consumers expect.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "zarrgpu/data_type.hpp"
#include "zarrgpu/device.hpp"

namespace zarrgpu::ipc {

// The descriptor format this build writes and reads ("zarrgpu_ipc" member).
inline constexpr int kDescriptorVersion = 1;
// The longest descriptor text accepted: a descriptor of rank 32 is under 4 KiB.
inline constexpr std::size_t kMaxDescriptorBytes = 64 * 1024;
// The largest rank accepted (NumPy's limit is 64; DLPack has none).
inline constexpr std::size_t kMaxRank = 64;

enum class HandleKind { cuda_ipc, fd, memfd };
std::string_view handle_kind_name(HandleKind k) noexcept;

struct Descriptor {
  int version = kDescriptorVersion;
  DataType data_type = DataType::float32;  // a numeric type (is_numeric)
  std::vector<std::uint64_t> shape;
  std::vector<std::int64_t> strides;  // bytes, multiples of the element size (DLPack's rule)
  std::uint64_t byte_offset = 0;      // of the first element, from the allocation's start
  std::uint64_t allocation_size = 0;  // bytes of the shared allocation
  Device device;                      // cpu: host memory (memfd); cuda: device memory
  std::string device_uuid;            // "GPU-…" as nvidia-smi prints it; "" for host memory
  HandleKind handle_kind = HandleKind::memfd;
  std::string handle;  // cuda_ipc: the 64-byte cudaIpcMemHandle_t in hex; "" otherwise
  std::string event;   // cuda_ipc: a cudaIpcEventHandle_t (hex) to wait on before reading; "" = ready
  bool read_only = false;  // the exporter shares it for reading only
  std::string lease;       // the cache service's lease id (zarrgpu serve); "" otherwise

  // Bytes from the lowest to the highest byte the view touches (0 when empty).
  std::uint64_t span_bytes() const;
};

// C-order strides in bytes.
std::vector<std::int64_t> contiguous_strides(const std::vector<std::uint64_t>& shape, DataType t);

// Checks a descriptor's consistency; throws Error(invalid_argument) naming the
// member at fault (a non-numeric type, strides not multiples of the element
// size, a view reaching past the allocation, a malformed handle or UUID, a
// handle kind that does not suit the device), Error(unsupported) for another
// version.
void validate(const Descriptor& d);

// JSON text (docs/ipc.md, docs/ipc-descriptor.schema.json).
std::string to_json(const Descriptor& d);
// Parses and validates. Error(invalid_argument): not JSON, over
// kMaxDescriptorBytes, a member missing, of the wrong type, or unknown, or any
// validate() failure; Error(unsupported): a version other than kDescriptorVersion.
Descriptor parse_descriptor(std::string_view json);

// A shared allocation: created here for export, or opened from a descriptor.
// Keeps the memory mapped (and, for imports, the exporter's handle open) while
// any copy lives.
class SharedMemory {
 public:
  struct Impl;
  SharedMemory() = default;
  explicit SharedMemory(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

  // Host memory in a sealed memfd (its size cannot change, so no importer can
  // be made to fault), zero-filled. Error(io) when the kernel refuses.
  static SharedMemory create_host(std::size_t bytes, std::string_view name = "zarrgpu");
  // Device memory on `device`: vmm = false, cudaMalloc (exported as a legacy
  // IPC handle); vmm = true, cuMemCreate with a POSIX file descriptor handle.
  // Error(device) without CUDA or on a CUDA failure.
  static SharedMemory create_device(std::size_t bytes, Device device, bool vmm);

  // Opens what `d` describes: the memfd or VMM file descriptor `fd` (the
  // caller keeps ownership of `fd`; this duplicates what it keeps), or the
  // CUDA IPC handle in `d` (fd unused). Waits for `d.event` when there is one.
  // Error(invalid_argument): `fd` is not what the descriptor names (not a
  // sealed memfd, another size), Error(not_found): a stale or forged CUDA
  // handle, Error(device): CUDA failures or no CUDA path.
  static SharedMemory open(const Descriptor& d, int fd = -1);

  bool valid() const noexcept { return impl_ != nullptr; }
  void* data() const noexcept;          // the allocation's start (mapped here)
  std::size_t size() const noexcept;    // its size in bytes
  Device device() const noexcept;
  HandleKind handle_kind() const noexcept;
  bool writable() const noexcept;
  // The file descriptor to pass (memfd, fd kinds); -1 for cuda_ipc. Owned by
  // this object: dup() it to keep it longer.
  int fd() const noexcept;
  // A new read-only file descriptor for the same memfd (host memory only):
  // what a reader may be given when it must not write. Caller owns it.
  int reopen_read_only() const;

  // Copies between this memory (at byte `offset`) and host memory `n` bytes:
  // memcpy for host memory, a synchronous cudaMemcpy for device memory.
  // Error(invalid_argument) for a range past the end or, for copy_in, memory
  // shared read-only.
  void copy_out(std::size_t offset, void* dst, std::size_t n) const;
  void copy_in(std::size_t offset, const void* src, std::size_t n) const;

  // A descriptor of a view of this memory: byte offset, shape, strides in bytes
  // (empty: C order). Fills the handle (and, for device memory, records an
  // event on `stream` (cudaStream_t; null: the legacy default stream) for the
  // importer to wait on when `record_event`). Validated before it is returned.
  Descriptor describe(DataType t, std::vector<std::uint64_t> shape, std::uint64_t byte_offset = 0,
                      std::vector<std::int64_t> strides = {}, bool record_event = false,
                      void* stream = nullptr) const;

 private:
  std::shared_ptr<Impl> impl_;
};

// A descriptor of device memory zarrgpu or anyone else allocated with
// cudaMalloc (a read's output): the legacy IPC handle of the allocation that
// contains `data`, with the offset of `data` in it. Error(device) without CUDA
// or for memory that cannot be exported (not from cudaMalloc).
Descriptor export_device_pointer(const void* data, DataType t, std::vector<std::uint64_t> shape,
                                 std::vector<std::int64_t> strides = {}, Device device = Device::cuda(0),
                                 void* stream = nullptr);

// The UUID of a CUDA device as nvidia-smi prints it ("GPU-…"); Error(device) without CUDA.
std::string device_uuid(Device device);

}  // namespace zarrgpu::ipc
