// The set of threads that decodes one chunk together. The format logic is
// written once against this interface: on the host a single thread
// (SerialGroup) runs it, on the GPU a warp (WarpGroup in ../gpu/) does,
// with rank 0 running the serial parts and every rank sharing the copies.
#pragma once

#include "config.hpp"

namespace zarrgpu::zstd {

struct SerialGroup {
  static constexpr uint32_t kSize = 1;
  ZARRGPU_HD_INLINE uint32_t rank() const { return 0; }
  ZARRGPU_HD_INLINE void sync() const {}
  ZARRGPU_HD_INLINE uint32_t broadcast(uint32_t v) const { return v; }
  ZARRGPU_HD_INLINE uint64_t broadcast64(uint64_t v) const { return v; }
  ZARRGPU_HD_INLINE bool any(bool p) const { return p; }
  // Bit r set when rank r's p holds.
  ZARRGPU_HD_INLINE uint32_t ballot(bool p) const { return p ? 1u : 0u; }
  // Bit r set when rank r's v equals this rank's.
  ZARRGPU_HD_INLINE uint32_t match_any(uint32_t /*v*/) const { return 1u; }
  // Sum of v over ranks 0..rank().
  ZARRGPU_HD_INLINE uint32_t inclusive_sum(uint32_t v) const { return v; }
  // Value of `v` held by rank `src` (only rank 0 exists here).
  ZARRGPU_HD_INLINE uint64_t shuffle64(uint64_t v, uint32_t /*src*/) const { return v; }
};

}  // namespace zarrgpu::zstd
