#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "era5_field.hpp"

using namespace zarrgpu::cli;

TEST(Era5Field, Coordinates) {
  auto lat = era5_latitudes(721);
  EXPECT_DOUBLE_EQ(lat.front(), 90.0);
  EXPECT_DOUBLE_EQ(lat.back(), -90.0);
  EXPECT_DOUBLE_EQ(lat[1], 89.75);
  auto lon = era5_longitudes(1440);
  EXPECT_DOUBLE_EQ(lon.front(), 0.0);
  EXPECT_DOUBLE_EQ(lon[1], 0.25);
  EXPECT_DOUBLE_EQ(lon.back(), 359.75);
}

TEST(Era5Field, ChannelsCycleWithSuffixes) {
  EXPECT_EQ(channel_info(0).name, "t2m");
  EXPECT_EQ(channel_info(3).name, "msl");
  EXPECT_EQ(channel_info(8).name, "t2m_2");
  EXPECT_EQ(channel_info(17).name, "u10_3");
}

TEST(Era5Field, DeterministicPlausibleAndDrifting) {
  Era5Shape s{4, 5, 19, 36, 7};
  std::vector<float> a(s.elements_per_step()), b(a.size()), c(a.size()), d(a.size());
  synthesize_time_step(s, 1, a);
  synthesize_time_step(s, 1, b);
  EXPECT_EQ(a, b);
  synthesize_time_step(s, 2, c);
  EXPECT_NE(a, c);
  Era5Shape other = s;
  other.seed = 8;
  synthesize_time_step(other, 1, d);
  EXPECT_NE(a, d);
  // t2m stays within plausible temperatures; msl within plausible pressures.
  const std::size_t plane = s.lat * s.lon;
  auto [tmin, tmax] = std::minmax_element(a.begin(), a.begin() + plane);
  EXPECT_GT(*tmin, 180.0f);
  EXPECT_LT(*tmax, 330.0f);
  EXPECT_GT(*tmax - *tmin, 30.0f);
  auto [pmin, pmax] = std::minmax_element(a.begin() + 3 * plane, a.begin() + 4 * plane);
  EXPECT_GT(*pmin, 90000.0f);
  EXPECT_LT(*pmax, 110000.0f);
  // Values are multiples of the channel's quantum.
  for (std::size_t i = 0; i < plane; ++i) {
    double q = a[i] / channel_info(0).quantum;
    ASSERT_EQ(q, std::round(q));
  }
  for (float v : a) ASSERT_TRUE(std::isfinite(v));
}
