// A ring of pinned host slots. Batch k fills slot k % n on the host, copies
// it to the device on a stream, and records the slot's event after the copy;
// batch k + n waits on that event before writing into the slot again, so the
// host never overwrites bytes a copy still reads, and memory stays bounded by
// slots x slot_bytes whatever the size of the read.
#pragma once

#include <cstddef>
#include <vector>

#include "gpu/cuda_buffer.hpp"
#include "gpu/staging_config.hpp"
#include "gpu/stream.hpp"

namespace zarrgpu::gpu {

class StagingRing {
 public:
  explicit StagingRing(const StagingConfig& config);

  unsigned size() const noexcept { return static_cast<unsigned>(slots_.size()); }
  std::size_t slot_bytes() const noexcept { return slot_bytes_; }

  // The slot of batch `k`, free to write: waits for the copy that last read
  // it. It holds at least `bytes` (a slot grows for a single oversized chunk).
  std::span<std::byte> acquire(std::size_t k, std::size_t bytes);
  // The slot of batch `k` is read by work queued on `stream` up to now.
  void release(std::size_t k, cudaStream_t stream);
  // Waits for every outstanding copy.
  void drain();

 private:
  struct Slot {
    PinnedBuffer host;
    Event free;
    bool pending = false;
  };
  std::size_t slot_bytes_;
  std::vector<Slot> slots_;
};

}  // namespace zarrgpu::gpu
