// Corrupt input: every truncation, bit flips, random bytes. The decoder must
// return an error status, never write past the capacity (guard bytes), and
// agree with liblz4's safe decoder: a block we accept liblz4 accepts with the
// same bytes; a block only liblz4 accepts breaks a rule liblz4 does not
// check (offset 0, which it decodes as zeros, or the end-of-block rules).
#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <iterator>

#include "block_corpus.hpp"

namespace zarrgpu::lz4::testing {
namespace {

struct Sample {
  Bytes data;
  Bytes block;
  std::string what;
};

std::vector<Sample> samples() {
  std::vector<Sample> s;
  const struct {
    DataKind kind;
    size_t size;
    Compressor c;
  } cases[] = {
      {DataKind::text, 3000, {Compressor::fast, 1}},       {DataKind::float_field, 9000, {Compressor::hc, 9}},
      {DataKind::repetitive, 5000, {Compressor::hc, 12}}, {DataKind::skewed, 20000, {Compressor::fast, 8}},
      {DataKind::mixed, 60000, {Compressor::fast, 1}},    {DataKind::random, 2000, {Compressor::fast, 1}},
      {DataKind::zeros, 300000, {Compressor::hc, 3}},     {DataKind::text, 40, {Compressor::fast, 1}},
  };
  uint64_t seed = 77;
  for (const auto& c : cases) {
    Sample x;
    x.data = make_data(c.kind, c.size, seed++);
    x.block = compress_block(x.data, c.c);
    x.what = std::string(data_kind_name(c.kind)) + " " + std::to_string(c.size) + " B " + c.c.name();
    s.push_back(std::move(x));
  }
  return s;
}

// Checks one (possibly corrupt) block against liblz4 with the given capacity.
// Counts which way the two decoders went.
struct Agreement {
  int both_ok = 0, both_fail = 0, only_liblz4 = 0;
};
void check_against_liblz4(const Bytes& block, size_t capacity, const std::string& what, Agreement* a) {
  const Guarded g = guarded_block(block, capacity);
  ASSERT_TRUE(g.guard_ok) << what << ": wrote past the capacity, status " << status_name(g.status);
  Bytes ref;
  const long r = reference_decode(block, capacity, &ref);
  if (g.status == Status::ok) {
    ASSERT_GE(r, 0) << what << ": we accept a block liblz4 rejects";
    ASSERT_TRUE(ref == g.out) << what << ": decoded bytes differ from liblz4's";
    ++a->both_ok;
  } else if (r >= 0) {
    ASSERT_TRUE(g.status == Status::zero_offset || g.status == Status::end_conditions)
        << what << ": liblz4 accepts, we say " << status_name(g.status);
    ++a->only_liblz4;
  } else {
    ++a->both_fail;
  }
}

TEST(Lz4Corrupt, EveryTruncationOfANumcodecsChunkIsAnError) {
  int cases = 0;
  for (const Sample& s : samples()) {
    Bytes frame(4);
    for (int i = 0; i < 4; ++i) frame[i] = static_cast<uint8_t>(s.data.size() >> (8 * i));
    frame.insert(frame.end(), s.block.begin(), s.block.end());
    for (size_t len = 0; len < frame.size(); ++len) {
      const Bytes cut(frame.begin(), frame.begin() + static_cast<long>(len));
      const Guarded g = guarded_frame(cut, s.data.size());
      ASSERT_NE(g.status, Status::ok) << s.what << " cut to " << len;
      ASSERT_TRUE(g.guard_ok) << s.what << " cut to " << len;
      ++cases;
    }
  }
  EXPECT_GT(cases, 10000);
}

// A raw block carries no size: a cut right after a sequence's literals can be
// a well-formed shorter block. It must still agree with liblz4 and never
// decode more than the original.
TEST(Lz4Corrupt, TruncatedBlocksAgreeWithLiblz4) {
  Agreement a;
  for (const Sample& s : samples())
    for (size_t len = 0; len < s.block.size(); ++len) {
      const Bytes cut(s.block.begin(), s.block.begin() + static_cast<long>(len));
      check_against_liblz4(cut, s.data.size(), s.what + " cut to " + std::to_string(len), &a);
      const Guarded g = guarded_block(cut, s.data.size());
      if (g.status == Status::ok) {
        ASSERT_LT(g.out.size(), s.data.size()) << s.what << " cut to " << len;
      }
    }
  EXPECT_GT(a.both_fail, 10000);
}

TEST(Lz4Corrupt, BitFlipsStayInBoundsAndAgreeWithLiblz4) {
  Agreement a;
  Rng rng(5);
  for (const Sample& s : samples()) {
    // Every bit of the first 512 bytes, then random bits of the rest.
    const size_t every = std::min<size_t>(s.block.size(), 512);
    std::vector<size_t> bits;
    for (size_t b = 0; b < every * 8; ++b) bits.push_back(b);
    for (int i = 0; i < 2000 && s.block.size() > every; ++i)
      bits.push_back(every * 8 + rng.next() % ((s.block.size() - every) * 8));
    for (const size_t bit : bits) {
      Bytes flipped = s.block;
      flipped[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      for (const size_t spare : {size_t{0}, size_t{64}})
        check_against_liblz4(flipped, s.data.size() + spare, s.what + " bit " + std::to_string(bit), &a);
    }
  }
  std::printf("bit flips: %d both decode, %d both reject, %d only liblz4 decodes\n", a.both_ok, a.both_fail,
              a.only_liblz4);
  EXPECT_GT(a.both_fail, 1000);
}

TEST(Lz4Corrupt, RandomBytesStayInBoundsAndAgreeWithLiblz4) {
  Agreement a;
  Rng rng(11);
  for (int i = 0; i < 20000; ++i) {
    Bytes junk(rng.below(300));
    for (auto& b : junk) b = static_cast<uint8_t>(rng.next());
    // Low tokens make long sequences likelier than uniform bytes do.
    if (i % 2) for (auto& b : junk) b &= 0x1F;
    check_against_liblz4(junk, rng.below(2000), "random input " + std::to_string(i), &a);
  }
  EXPECT_GT(a.both_fail, 1000);
}

}  // namespace
}  // namespace zarrgpu::lz4::testing
