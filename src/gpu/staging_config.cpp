#include "gpu/staging_config.hpp"

#include <algorithm>

namespace zarrgpu::gpu {

StagingConfig StagingConfig::from(const Config& config, std::uint64_t device_bytes) {
  StagingConfig c;
  c.slots = config.staging_slots ? config.staging_slots : default_slots(device_bytes);
  c.slot_bytes = config.staging_bytes;
  c.scratch_bytes = config.scratch_bytes ? config.scratch_bytes : 2 * c.slot_bytes;
  c.read_piece_bytes = config.read_piece_bytes;
  return c;
}

StagingConfig StagingConfig::within(std::uint64_t device_bytes) const {
  StagingConfig c = *this;
  c.slots = std::min(slots, 2u);
  constexpr std::uint64_t kParts = 1 + 2 + 6;
  const std::uint64_t part = std::max<std::uint64_t>(device_bytes / c.slots / kParts, std::uint64_t{1} << 20);
  c.slot_bytes = std::min<std::uint64_t>(slot_bytes, part);
  c.scratch_bytes = std::min<std::uint64_t>(scratch_bytes, 2 * part);
  c.temp_bytes = 6 * part;
  return c;
}

std::uint64_t StagingConfig::device_footprint(std::size_t temp_per_scratch) const {
  const std::uint64_t temp = temp_bytes ? temp_bytes : temp_per_scratch * scratch_bytes;
  return std::uint64_t(slots) * (slot_bytes + scratch_bytes + temp);
}

}  // namespace zarrgpu::gpu
