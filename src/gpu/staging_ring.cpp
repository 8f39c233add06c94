#include "gpu/staging_ring.hpp"

#include <algorithm>

namespace zarrgpu::gpu {

StagingRing::StagingRing(const StagingConfig& config) : slot_bytes_(config.slot_bytes) {
  slots_.reserve(std::max(2u, config.slots));
  for (unsigned i = 0; i < std::max(2u, config.slots); ++i) slots_.push_back(Slot{PinnedBuffer(slot_bytes_), Event(), false});
}

std::span<std::byte> StagingRing::acquire(std::size_t k, std::size_t bytes) {
  Slot& s = slots_[k % slots_.size()];
  if (s.pending) {
    s.free.synchronize();
    s.pending = false;
  }
  s.host.reserve(std::max(bytes, slot_bytes_));
  return {s.host.data(), bytes};
}

void StagingRing::release(std::size_t k, cudaStream_t stream) {
  Slot& s = slots_[k % slots_.size()];
  s.free.record(stream);
  s.pending = true;
}

void StagingRing::drain() {
  for (Slot& s : slots_) {
    if (s.pending) {
      s.free.synchronize();
      s.pending = false;
    }
  }
}

}  // namespace zarrgpu::gpu
