// Sizes of the pinned staging ring and the device scratch a GPU read may use.
// Host code only (no CUDA), so CI tests the parsing.
//
// Environment (read once per call to from_environment):
//   ZARRGPU_STAGING_BYTES  bytes per pinned slot, e.g. "256M", "1G", "65536" (default 256 MiB)
//   ZARRGPU_STAGING_SLOTS  slots in the ring, 2..16 (default 3: fetch k+1 while k decodes and k-1 drains)
//   ZARRGPU_SCRATCH_BYTES  device bytes of decoded chunks per batch (default 2x the slot size);
//                          the GPU Zstd decoder's temp per slot is up to 6x this
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace zarrgpu::gpu {

struct StagingConfig {
  std::size_t slot_bytes = std::size_t{256} << 20;
  unsigned slots = 3;
  std::size_t scratch_bytes = std::size_t{512} << 20;

  // Defaults overridden by the environment; throws Error(invalid_argument)
  // naming the variable when a value does not parse or is out of range.
  static StagingConfig from_environment();
};

// "123", "64K", "256M", "1G", "2GiB", "512MB" (powers of 1024). nullopt if malformed or zero.
std::optional<std::uint64_t> parse_byte_size(std::string_view text) noexcept;

}  // namespace zarrgpu::gpu
