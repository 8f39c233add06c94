// Hand-written blocks, one per rule of lz4_Block_format.md that the decoder
// enforces: each status comes from the rule named in the test.
#include <gtest/gtest.h>

#include <string>

#include "block_corpus.hpp"

namespace zarrgpu::lz4::testing {
namespace {

Bytes bytes(std::initializer_list<int> v) {
  Bytes b;
  for (int x : v) b.push_back(static_cast<uint8_t>(x));
  return b;
}
Bytes operator+(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

// 'a', then a match of 15 bytes at offset 1, then the last sequence's literals.
Bytes one_match_then(const std::string& last_literals) {
  return bytes({(1 << 4) | 11, 'a', 1, 0, static_cast<int>(last_literals.size() << 4)}) + text(last_literals);
}

TEST(Lz4Format, EmptyBlockIsOneZeroToken) {
  const Guarded g = guarded_block(bytes({0}), 0);
  EXPECT_EQ(g.status, Status::ok);
  EXPECT_TRUE(g.out.empty());
}

TEST(Lz4Format, EmptyBlockWithAnyOtherTokenBreaksTheEndConditions) {
  EXPECT_EQ(guarded_block(bytes({0x02}), 0).status, Status::end_conditions);
  EXPECT_EQ(guarded_block(bytes({0x02}), 16).status, Status::end_conditions);
  Bytes ref;
  EXPECT_EQ(reference_decode(bytes({0x02}), 0, &ref), -1);
}

TEST(Lz4Format, NoTokenIsTruncated) { EXPECT_EQ(guarded_block({}, 16).status, Status::truncated_input); }

TEST(Lz4Format, LiteralsOnlyBlockIgnoresTheLastTokensMatchField) {
  const Guarded g = guarded_block(bytes({0x3F}) + text("abc"), 3);
  EXPECT_EQ(g.status, Status::ok);
  EXPECT_TRUE(g.out == text("abc"));
}

TEST(Lz4Format, LiteralLengthExtensionAddsBytesUntilOneIsNot255) {
  Bytes lits(15 + 255 + 10);
  for (size_t i = 0; i < lits.size(); ++i) lits[i] = static_cast<uint8_t>(i);
  const Guarded g = guarded_block(bytes({0xF0, 255, 10}) + lits, lits.size());
  EXPECT_EQ(g.status, Status::ok);
  EXPECT_TRUE(g.out == lits);
  EXPECT_EQ(guarded_block(bytes({0xF0, 255}), 1000).status, Status::truncated_input);
}

TEST(Lz4Format, LiteralsPastTheInputAreTruncated) {
  EXPECT_EQ(guarded_block(bytes({0x50}) + text("ab"), 16).status, Status::truncated_input);
}

TEST(Lz4Format, OverlappingMatchRepeatsTheLastByte) {
  const Guarded g = guarded_block(one_match_then("bcdef"), 21);
  EXPECT_EQ(g.status, Status::ok) << status_name(g.status);
  EXPECT_TRUE(g.out == text(std::string(16, 'a') + "bcdef"));
  Bytes ref;
  EXPECT_EQ(reference_decode(one_match_then("bcdef"), 21, &ref), 21);
  EXPECT_TRUE(ref == g.out);
}

TEST(Lz4Format, MatchLengthExtension) {
  // 4 + 15 + 255 + 1 = 275 bytes of 'a' after the first.
  const Bytes block = bytes({(1 << 4) | 15, 'a', 1, 0, 255, 1, 0x50}) + text("bcdef");
  const Guarded g = guarded_block(block, 1 + 275 + 5);
  EXPECT_EQ(g.status, Status::ok) << status_name(g.status);
  EXPECT_TRUE(g.out == text(std::string(276, 'a') + "bcdef"));
  EXPECT_EQ(guarded_block(bytes({(1 << 4) | 15, 'a', 1, 0, 255}), 1000).status, Status::truncated_input);
}

TEST(Lz4Format, OffsetZeroIsCorrupt) {
  EXPECT_EQ(guarded_block(bytes({(1 << 4) | 11, 'a', 0, 0, 0x50}) + text("bcdef"), 64).status, Status::zero_offset);
}

TEST(Lz4Format, OffsetBeforeTheOutputStartIsCorrupt) {
  EXPECT_EQ(guarded_block(bytes({(1 << 4) | 11, 'a', 2, 0, 0x50}) + text("bcdef"), 64).status,
            Status::offset_before_output);
}

TEST(Lz4Format, OffsetCutShortIsTruncated) {
  EXPECT_EQ(guarded_block(bytes({(1 << 4) | 11, 'a', 1}), 64).status, Status::truncated_input);
}

TEST(Lz4Format, LiteralsOrMatchPastTheCapacityAreOutputTooSmall) {
  EXPECT_EQ(guarded_block(bytes({0x30}) + text("abc"), 2).status, Status::output_too_small);
  EXPECT_EQ(guarded_block(one_match_then("bcdef"), 10).status, Status::output_too_small);
  EXPECT_EQ(guarded_block(one_match_then("bcdef"), 20).status, Status::output_too_small);
}

// "End of block restrictions" 2: the last 5 bytes are literals.
TEST(Lz4Format, FewerThanFiveLastLiteralsAfterAMatchBreakTheEndConditions) {
  EXPECT_EQ(guarded_block(one_match_then("bcde"), 64).status, Status::end_conditions);
}

// "End of block restrictions" 3: the last match starts 12 or more bytes before the end.
TEST(Lz4Format, LastMatchStartingCloserThanTwelveBytesBreaksTheEndConditions) {
  // 'a' + 4-byte match (starts at 1) + 6 literals: 11 bytes, the match starts 10 before the end.
  const Bytes close = bytes({(1 << 4) | 0, 'a', 1, 0, 0x60}) + text("bcdefg");
  EXPECT_EQ(guarded_block(close, 64).status, Status::end_conditions);
  // 7 literals: the match starts 11 before the end, still too close; 8 literals: 12, allowed.
  EXPECT_EQ(guarded_block(bytes({(1 << 4) | 0, 'a', 1, 0, 0x70}) + text("bcdefgh"), 64).status,
            Status::end_conditions);
  EXPECT_EQ(guarded_block(bytes({(1 << 4) | 0, 'a', 1, 0, 0x80}) + text("bcdefghi"), 64).status, Status::ok);
}

TEST(Lz4Format, NullPointersWithSizesAreInvalidArguments) {
  size_t n = 0;
  uint8_t out[4];
  const uint8_t in[1] = {0};
  EXPECT_EQ(decode_block(nullptr, 1, out, 4, &n), Status::invalid_argument);
  EXPECT_EQ(decode_block(in, 1, nullptr, 4, &n), Status::invalid_argument);
  EXPECT_EQ(decode_numcodecs_frame(nullptr, 5, out, 4, &n), Status::invalid_argument);
}

TEST(Lz4NumcodecsFrame, HeaderDeclaresTheDecodedSize) {
  const Bytes block = bytes({0x30}) + text("abc");
  const Guarded ok = guarded_frame(bytes({3, 0, 0, 0}) + block, 3);
  EXPECT_EQ(ok.status, Status::ok);
  EXPECT_TRUE(ok.out == text("abc"));
  // The block is shorter than declared, longer, or the capacity is below the declared size.
  EXPECT_EQ(guarded_frame(bytes({5, 0, 0, 0}) + block, 8).status, Status::size_mismatch);
  EXPECT_EQ(guarded_frame(bytes({2, 0, 0, 0}) + block, 8).status, Status::output_too_small);
  EXPECT_EQ(guarded_frame(bytes({3, 0, 0, 0}) + block, 2).status, Status::output_too_small);
  EXPECT_EQ(guarded_frame(bytes({0, 0, 1, 0}) + block, 8).status, Status::output_too_small);
  EXPECT_EQ(guarded_frame(bytes({3, 0, 0}), 8).status, Status::truncated_input);
  // An empty chunk as numcodecs writes it: size 0 and the one-token block.
  EXPECT_EQ(guarded_frame(bytes({0, 0, 0, 0, 0}), 0).status, Status::ok);
}

}  // namespace
}  // namespace zarrgpu::lz4::testing
