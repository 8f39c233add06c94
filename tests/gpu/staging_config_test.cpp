#include <gtest/gtest.h>

#include "gpu/staging_config.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::gpu {
namespace {

TEST(StagingConfig, WithinABudgetBoundsTheDeviceFootprint) {
  StagingConfig big;
  big.slots = 4;
  for (std::uint64_t budget : {std::uint64_t{256} << 20, std::uint64_t{1} << 30, std::uint64_t{2} << 30}) {
    const StagingConfig c = big.within(budget);
    EXPECT_EQ(c.slots, 2u);
    EXPECT_LE(c.device_footprint(6), budget) << budget;
    EXPECT_GE(c.device_footprint(6), budget * 9 / 10) << budget;  // the budget is used, not wasted
    EXPECT_EQ(c.scratch_bytes, 2 * c.slot_bytes);
    EXPECT_EQ(c.temp_bytes, 3 * c.scratch_bytes);
  }
  // Never above the configuration it starts from, never below 1 MiB a part.
  EXPECT_EQ(big.within(std::uint64_t{1} << 40).slot_bytes, big.slot_bytes);
  EXPECT_EQ(big.within(1).slot_bytes, std::size_t{1} << 20);
  // Without a temp share of its own, the read path's factor of the scratch.
  EXPECT_EQ(big.device_footprint(6), 4 * ((256u << 20) + 7 * (512ull << 20)));
}

TEST(StagingConfig, TakesTheConfiguration) {
  Config settings;
  settings.staging_bytes = 64u << 20;
  settings.staging_slots = 4;
  StagingConfig c = StagingConfig::from(settings);
  EXPECT_EQ(c.slot_bytes, 64u << 20);
  EXPECT_EQ(c.slots, 4u);
  EXPECT_EQ(c.scratch_bytes, 128u << 20);  // twice the slot unless set
  settings.scratch_bytes = 100u << 20;
  EXPECT_EQ(StagingConfig::from(settings).scratch_bytes, 100u << 20);
  c = StagingConfig::from(Config{});
  EXPECT_EQ(c.slot_bytes, 256u << 20);
  EXPECT_EQ(c.slots, 3u);
  // A fourth slot by default on GPUs of 32 GiB and more; the setting still rules.
  EXPECT_EQ(StagingConfig::from(Config{}, std::uint64_t{24} << 30).slots, 3u);
  EXPECT_EQ(StagingConfig::from(Config{}, std::uint64_t{80} << 30).slots, 4u);
  settings.staging_slots = 2;
  EXPECT_EQ(StagingConfig::from(settings, std::uint64_t{80} << 30).slots, 2u);
  // Reads of GPU-decoded chunks go in pieces of 4 MiB unless the setting says.
  EXPECT_EQ(c.read_piece_bytes, 4u << 20);
  settings.read_piece_bytes = 300;
  EXPECT_EQ(StagingConfig::from(settings).read_piece_bytes, 300u);
}

}  // namespace
}  // namespace zarrgpu::gpu
