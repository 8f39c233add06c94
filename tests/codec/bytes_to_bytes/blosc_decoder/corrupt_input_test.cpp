// Corrupt chunks: every truncation, bit flips, random bytes. The decoder
// must return an error status, never write past the capacity (guard
// bytes), and agree with c-blosc: a chunk we accept c-blosc accepts with the
// same bytes; a chunk only c-blosc accepts breaks a rule its codecs do not
// check: an LZ4 stream with offset 0 or against the end-of-block rules, or a
// Zstandard stream that our Zstd decoder finds corrupt where libzstd is
// lenient (see tests/codec/bytes_to_bytes/zstd_decoder/corrupt_input_test.cpp).
#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <iterator>

#include "chunk_corpus.hpp"
#include "codec/bytes_to_bytes/lz4/decoder/numcodecs_frame.hpp"

namespace zarrgpu::blosc::testing {
namespace {

struct Sample {
  Bytes data;
  Bytes chunk;
  std::string what;
};

std::vector<Sample> samples() {
  std::vector<Sample> s;
  uint64_t seed = 500;
  for (const char* cname : {"blosclz", "lz4", "lz4hc", "zstd", "zlib"})
    for (const int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
      ChunkParams p;
      p.cname = cname;
      p.shuffle = shuffle;
      p.blocksize = 2048;  // several blocks, each split in 4 streams
      Sample x;
      x.data = make_data(DataKind::float_field, 9000, seed++);
      x.chunk = compress_chunk(x.data, p);
      x.what = p.name();
      s.push_back(std::move(x));
    }
  return s;
}

bool rule_only_we_check(const Bytes& chunk, const Guarded& g) {
  if (g.status != Status::corrupt_stream) return false;
  const auto codec = static_cast<Codec>(chunk[2] >> 5);
  const uint32_t inner = g.inner_status;
  if (codec == Codec::lz4)
    return inner == static_cast<uint32_t>(lz4::Status::zero_offset) ||
           inner == static_cast<uint32_t>(lz4::Status::end_conditions);
  if (codec == Codec::zstd)
    return inner == static_cast<uint32_t>(zstd::Status::corrupt_literals) ||
           inner == static_cast<uint32_t>(zstd::Status::corrupt_sequences) ||
           inner == static_cast<uint32_t>(zstd::Status::corrupt_block);
  return false;
}

struct Agreement {
  int both_ok = 0, both_fail = 0, only_cblosc = 0;
};
void check_against_cblosc(const Bytes& chunk, size_t capacity, const std::string& what, Agreement* a) {
  const Guarded g = guarded_decode(chunk, capacity);
  ASSERT_TRUE(g.guard_ok) << what << ": wrote past the capacity, status " << status_name(g.status);
  Bytes ref;
  const long r = reference_decode(chunk, capacity, &ref);
  if (g.status == Status::ok) {
    ASSERT_GE(r, 0) << what << ": we accept a chunk c-blosc rejects";
    ASSERT_TRUE(ref == g.out) << what << ": decoded bytes differ from c-blosc's";
    ++a->both_ok;
  } else if (r >= 0) {
    ASSERT_TRUE(rule_only_we_check(chunk, g)) << what << ": c-blosc accepts, we say " << status_name(g.status)
                                           << " inner " << g.inner_status;
    ++a->only_cblosc;
  } else {
    ++a->both_fail;
  }
}

TEST(BloscCorrupt, EveryTruncationIsAnError) {
  int cases = 0;
  for (const Sample& s : samples())
    for (size_t len = 0; len < s.chunk.size(); ++len) {
      const Bytes cut(s.chunk.begin(), s.chunk.begin() + static_cast<long>(len));
      const Guarded g = guarded_decode(cut, s.data.size());
      ASSERT_NE(g.status, Status::ok) << s.what << " cut to " << len;
      ASSERT_TRUE(g.guard_ok) << s.what << " cut to " << len;
      ++cases;
    }
  EXPECT_GT(cases, 30000);
}

TEST(BloscCorrupt, BitFlipsStayInBoundsAndAgreeWithCBlosc) {
  Agreement a;
  Rng rng(9);
  for (const Sample& s : samples()) {
    // Every bit of the header, bstarts and first streams, then random bits.
    const size_t every = std::min<size_t>(s.chunk.size(), 256);
    std::vector<size_t> bits;
    for (size_t b = 0; b < every * 8; ++b) bits.push_back(b);
    for (int i = 0; i < 1000 && s.chunk.size() > every; ++i)
      bits.push_back(every * 8 + rng.next() % ((s.chunk.size() - every) * 8));
    for (const size_t bit : bits) {
      Bytes flipped = s.chunk;
      flipped[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      check_against_cblosc(flipped, s.data.size(), s.what + " bit " + std::to_string(bit), &a);
    }
  }
  std::printf("bit flips: %d both decode, %d both reject, %d only c-blosc decodes\n", a.both_ok, a.both_fail,
              a.only_cblosc);
  EXPECT_GT(a.both_fail, 1000);
}

// Random bytes behind a valid-looking header, so the block and stream
// checks see them.
TEST(BloscCorrupt, RandomBodiesStayInBoundsAndAgreeWithCBlosc) {
  Agreement a;
  Rng rng(13);
  for (int i = 0; i < 20000; ++i) {
    Bytes c(16 + rng.below(400));
    for (auto& b : c) b = static_cast<uint8_t>(rng.next());
    const uint32_t nbytes = 1 + rng.below(3000), blocksize = 1 + rng.below(nbytes);
    const uint8_t codec = static_cast<uint8_t>(rng.below(2) ? 0 : 1);
    c[0] = 2;
    c[1] = 1;
    c[2] = static_cast<uint8_t>((codec << 5) | (c[2] & 0x15));
    c[3] = static_cast<uint8_t>(1 + rng.below(16));
    for (int k = 0; k < 4; ++k) {
      c[4 + k] = static_cast<uint8_t>(nbytes >> (8 * k));
      c[8 + k] = static_cast<uint8_t>(blocksize >> (8 * k));
      c[12 + k] = static_cast<uint8_t>(c.size() >> (8 * k));
    }
    check_against_cblosc(c, nbytes, "random chunk " + std::to_string(i), &a);
  }
  EXPECT_GT(a.both_fail, 1000);
}

// The inputs fuzz/lz4_blosc_decoder found, replayed as the fuzzer reads them
// (kind byte, capacity / 8 in two bytes, input) through each decoder.
TEST(BloscCorrupt, FuzzerRegressionsStayInBounds) {
  const std::string dir = LZ4_BLOSC_FUZZ_REGRESSIONS_DIR;
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  int count = 0;
  Agreement a;
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream f(dir + "/" + e->d_name, std::ios::binary);
    const Bytes input((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (input.size() < 3) continue;
    const size_t capacity = (static_cast<size_t>(input[1]) | (static_cast<size_t>(input[2]) << 8)) * 8;
    const Bytes body(input.begin() + 3, input.end());
    check_against_cblosc(body, capacity, e->d_name, &a);
    for (const bool framed : {false, true}) {
      Bytes out(capacity + kGuard, kGuardByte);
      size_t n = 0;
      if (framed)
        lz4::decode_numcodecs_frame(body.data(), body.size(), out.data(), capacity, &n);
      else
        lz4::decode_block(body.data(), body.size(), out.data(), capacity, &n);
      for (size_t i = capacity; i < out.size(); ++i) ASSERT_EQ(out[i], kGuardByte) << e->d_name;
    }
    ++count;
  }
  closedir(d);
  std::printf("replayed %d fuzzer regressions\n", count);
  EXPECT_GE(count, 1);
}

}  // namespace
}  // namespace zarrgpu::blosc::testing
