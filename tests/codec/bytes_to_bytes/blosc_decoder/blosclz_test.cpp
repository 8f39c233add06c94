// Hand-written BloscLZ streams, one per instruction form of c-blosc's
// blosclz.c format (see blosclz.hpp), each also decoded by c-blosc inside a
// one-block chunk so the two agree on what the form means.
#include <gtest/gtest.h>

#include "chunk_corpus.hpp"

namespace zarrgpu::blosc::testing {
namespace {

struct Decoded {
  BloscLzStatus status;
  Bytes out;
};
Decoded blosclz(const Bytes& stream, size_t capacity) {
  Bytes dst(capacity + kGuard, kGuardByte);
  size_t n = 0;
  const BloscLzStatus st = decode_blosclz(stream.data(), stream.size(), dst.data(), capacity, &n);
  for (size_t i = capacity; i < dst.size(); ++i) EXPECT_EQ(dst[i], kGuardByte);
  dst.resize(n);
  return {st, dst};
}

// c-blosc's reading of `stream` as the one stream of a BloscLZ chunk of `n` bytes.
long reference(const Bytes& stream, size_t n, Bytes* out) {
  Bytes c = {2, 1, kFlagDontSplit, 1};
  for (uint32_t v : {static_cast<uint32_t>(n), static_cast<uint32_t>(n), uint32_t{0}, uint32_t{20},
                     static_cast<uint32_t>(stream.size())})
    for (int i = 0; i < 4; ++i) c.push_back(static_cast<uint8_t>(v >> (8 * i)));
  c.insert(c.end(), stream.begin(), stream.end());
  const uint32_t cbytes = static_cast<uint32_t>(c.size());
  for (int i = 0; i < 4; ++i) c[12 + i] = static_cast<uint8_t>(cbytes >> (8 * i));
  return reference_decode(c, n, out);
}

void expect_agree(const Bytes& stream, const Bytes& expected) {
  const Decoded d = blosclz(stream, expected.size());
  EXPECT_EQ(d.status, BloscLzStatus::ok);
  EXPECT_TRUE(d.out == expected);
  Bytes ref;
  EXPECT_EQ(reference(stream, expected.size(), &ref), static_cast<long>(expected.size()));
  EXPECT_TRUE(ref == expected);
}

TEST(BloscLz, FirstLiteralRunIgnoresTheLevelBits) { expect_agree({0x22, 'a', 'b', 'c'}, {'a', 'b', 'c'}); }

TEST(BloscLz, NearMatchCopiesForwardWithOverlap) {
  // "ab", then a match of (1 << 5 >> 5) + 2 = 3 bytes at distance 2, then one literal.
  expect_agree({0x01, 'a', 'b', 0x20, 0x01, 0x00, 'z'}, {'a', 'b', 'a', 'b', 'a', 'z'});
}

TEST(BloscLz, MatchLengthExtension) {
  // Field 7: 6 + 255 + 4 + 3 = 268 bytes of 'a' at distance 1, then one literal.
  Bytes expected(269, 'a');
  expected.push_back('z');
  expect_agree({0x00, 'a', 0xE0, 255, 4, 0x00, 0x00, 'z'}, expected);
}

TEST(BloscLz, FarMatchReadsABigEndianDistance) {
  // 8200 literals (in runs of 32), then a far match of 3 at distance 8192 + 3.
  Bytes data(8200), stream;
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13 + i / 256);
  for (size_t i = 0; i < data.size(); i += 32) {
    const size_t run = std::min<size_t>(32, data.size() - i);
    stream.push_back(static_cast<uint8_t>(run - 1));
    stream.insert(stream.end(), data.begin() + static_cast<long>(i), data.begin() + static_cast<long>(i + run));
  }
  for (uint8_t b : {0x3F, 0xFF, 0x00, 0x03}) stream.push_back(b);
  stream.insert(stream.end(), {0x00, 'z'});
  Bytes expected = data;
  for (int k = 0; k < 3; ++k) expected.push_back(expected[expected.size() - 8195]);
  expected.push_back('z');
  expect_agree(stream, expected);
}

TEST(BloscLz, Errors) {
  EXPECT_EQ(blosclz({0x03, 'a', 'b'}, 16).status, BloscLzStatus::truncated_input);
  EXPECT_EQ(blosclz({0x03, 'a', 'b', 'c', 'd'}, 3).status, BloscLzStatus::output_too_small);
  EXPECT_EQ(blosclz({0x00, 'a', 0x20, 0x01, 0x00, 'z'}, 16).status, BloscLzStatus::offset_before_output);
  EXPECT_EQ(blosclz({0x00, 'a', 0x20, 0x00, 0x00, 'z'}, 3).status, BloscLzStatus::output_too_small);
  EXPECT_EQ(blosclz({0x00, 'a', 0xE0, 255}, 600).status, BloscLzStatus::truncated_input);
  EXPECT_EQ(blosclz({0x00, 'a', 0x3F, 0xFF, 0x00}, 600).status, BloscLzStatus::truncated_input);
  // A match with nothing after it: c-blosc stops before copying it.
  const Bytes ends_in_match = {0x00, 'a', 0x20, 0x00};
  EXPECT_EQ(blosclz(ends_in_match, 5).status, BloscLzStatus::truncated_input);
  Bytes ref;  // 5 bytes: a 4-byte stream for a 4-byte block would be stored as is
  EXPECT_EQ(reference(ends_in_match, 5, &ref), -1);
}

}  // namespace
}  // namespace zarrgpu::blosc::testing
