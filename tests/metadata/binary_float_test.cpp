#include "metadata/binary_float.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace zarrgpu::metadata {
namespace {

TEST(BinaryFloat, EveryBinary16ValueRoundTripsThroughDouble) {
  for (std::uint64_t bits = 0; bits < 0x10000; ++bits) {
    if (is_nan_bits(bits, kBinary16)) continue;
    double d = decode_binary(bits, kBinary16);
    auto back = encode_binary(d, kBinary16);
    ASSERT_TRUE(back.has_value()) << std::hex << bits;
    EXPECT_EQ(*back, bits) << std::hex << bits;
  }
}

TEST(BinaryFloat, EveryBfloat16ValueRoundTripsThroughDouble) {
  for (std::uint64_t bits = 0; bits < 0x10000; ++bits) {
    if (is_nan_bits(bits, kBfloat16)) continue;
    // bfloat16 is the top half of a binary32.
    EXPECT_EQ(decode_binary(bits, kBfloat16), static_cast<double>(std::bit_cast<float>(std::uint32_t(bits << 16))));
    EXPECT_EQ(encode_binary(decode_binary(bits, kBfloat16), kBfloat16), bits);
  }
}

TEST(BinaryFloat, Binary32RoundingMatchesTheHardware) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-160, 130);
  for (int i = 0; i < 200000; ++i) {
    double d = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1);
    float f = static_cast<float>(d);
    auto bits = encode_binary(d, kBinary32);
    if (std::isinf(f)) {
      EXPECT_FALSE(bits.has_value()) << d;
    } else {
      ASSERT_TRUE(bits.has_value()) << d;
      EXPECT_EQ(*bits, std::bit_cast<std::uint32_t>(f)) << d;
    }
  }
}

#ifdef __FLT16_MAX__
TEST(BinaryFloat, Binary16RoundingMatchesTheCompiler) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-27, 16);
  for (int i = 0; i < 200000; ++i) {
    double d = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1);
    _Float16 h = static_cast<_Float16>(d);
    auto bits = encode_binary(d, kBinary16);
    if (std::isinf(static_cast<double>(h))) {
      EXPECT_FALSE(bits.has_value()) << d;
    } else {
      ASSERT_TRUE(bits.has_value()) << d;
      EXPECT_EQ(*bits, std::bit_cast<std::uint16_t>(h)) << d;
    }
  }
}
#endif

TEST(BinaryFloat, Bfloat16RoundsOnceFromDouble) {
  // 1 + 2^-8 + 2^-40 lies just above the midpoint of bfloat16 1.0 and
  // 1 + 2^-7, so its nearest is 1 + 2^-7. Through binary32 first it would
  // become the exact midpoint 1 + 2^-8 and round to even: 1.0.
  double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(encode_binary(d, kBfloat16), 0x3f81u);
  EXPECT_EQ(encode_binary(1.0 + std::ldexp(1.0, -8), kBfloat16), 0x3f80u);  // tie -> even
}

TEST(BinaryFloat, LimitsAndSpecials) {
  EXPECT_EQ(encode_binary(65504.0, kBinary16), 0x7bffu);
  EXPECT_EQ(encode_binary(65519.99, kBinary16), 0x7bffu);
  EXPECT_FALSE(encode_binary(65520.0, kBinary16).has_value());  // rounds to infinity
  EXPECT_EQ(encode_binary(std::ldexp(1.0, -24), kBinary16), 0x0001u);  // smallest subnormal
  EXPECT_EQ(encode_binary(std::ldexp(1.0, -25), kBinary16), 0x0000u);  // tie -> even (zero)
  EXPECT_EQ(encode_binary(std::ldexp(1.5, -25), kBinary16), 0x0001u);
  EXPECT_EQ(encode_binary(-0.0, kBinary16), 0x8000u);
  EXPECT_EQ(encode_binary(INFINITY, kBinary16), 0x7c00u);
  EXPECT_EQ(encode_binary(-INFINITY, kBfloat16), 0xff80u);
  EXPECT_EQ(encode_binary(std::nan(""), kBinary32), 0x7fc00000u);
  EXPECT_EQ(canonical_nan(kBinary16), 0x7e00u);
  EXPECT_EQ(canonical_nan(kBfloat16), 0x7fc0u);
  EXPECT_EQ(canonical_nan(kBinary64), 0x7ff8000000000000u);
  EXPECT_EQ(encode_binary(std::numeric_limits<double>::denorm_min(), kBinary32), 0u);
}

}  // namespace
}  // namespace zarrgpu::metadata
