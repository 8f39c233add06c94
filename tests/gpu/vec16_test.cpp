#include <gtest/gtest.h>

#include <cstring>

#include "gpu/vec16.hpp"

namespace zarrgpu::gpu {
namespace {

TEST(Vec16, SwapsComponentsInPlace) {
  EXPECT_EQ(bswap16(0x1234), 0x3412);
  EXPECT_EQ(bswap32(0x11223344u), 0x44332211u);
  EXPECT_EQ(bswap64(0x0102030405060708ull), 0x0807060504030201ull);
  EXPECT_EQ(swap_components(std::uint32_t{0x11223344u}, 4), 0x44332211u);
  EXPECT_EQ(swap_components(std::uint32_t{0x11223344u}, 2), 0x22114433u);
  EXPECT_EQ(swap_components(std::uint64_t{0x0102030405060708ull}, 4), 0x0403020108070605ull);
  EXPECT_EQ(swap_components(std::uint64_t{0x0102030405060708ull}, 0), 0x0102030405060708ull);
  // complex64 big-endian (real, imag): each float swapped, order kept.
  const Vec16 c = swap_components(Vec16{0x0102030405060708ull, 0x1112131415161718ull}, 8);
  EXPECT_EQ(c.lo, 0x0807060504030201ull);
  EXPECT_EQ(c.hi, 0x1817161514131211ull);
}

TEST(Vec16, ReplicatesPatterns) {
  EXPECT_EQ(replicate_pattern(Vec16{0xab, 0}, 1).lo, 0xababababababababull);
  EXPECT_EQ(replicate_pattern(Vec16{0x1234, 0}, 2).hi, 0x1234123412341234ull);
  EXPECT_EQ(replicate_pattern(Vec16{0xdeadbeefull | (0xffull << 32), 0}, 4).lo, 0xdeadbeefdeadbeefull);
  const Vec16 e = replicate_pattern(Vec16{7, 9}, 8);
  EXPECT_EQ(e.lo, 7u);
  EXPECT_EQ(e.hi, 7u);
  const Vec16 f = replicate_pattern(Vec16{7, 9}, 16);
  EXPECT_EQ(f.hi, 9u);
}

}  // namespace
}  // namespace zarrgpu::gpu
