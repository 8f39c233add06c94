// Unit tests of the format pieces: XXH64 against libxxhash, the bit readers,
// the predefined FSE distributions, frame header fields.
#include <gtest/gtest.h>

#if defined(ZARRGPU_HAVE_LIBXXHASH)
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif

#include "codec/bytes_to_bytes/zstd/decoder/bit_reader.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/group.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/fse.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/xxhash64.hpp"
#include "frame_corpus.hpp"

namespace zarrgpu::zstd::testing {
namespace {

TEST(ZstdFormat, Xxh64MatchesLibxxhash) {
#if !defined(ZARRGPU_HAVE_LIBXXHASH)
  GTEST_SKIP() << "xxhash.h not found";
#else
  Rng rng(1);
  Bytes buf(5000);
  for (auto& b : buf) b = static_cast<uint8_t>(rng.next());
  for (size_t len = 0; len < 300; ++len) {
    for (size_t off : {size_t{0}, size_t{1}, size_t{7}}) {
      EXPECT_EQ(xxh64(buf.data() + off, len), XXH64(buf.data() + off, len, 0)) << len;
    }
  }
  EXPECT_EQ(xxh64(buf.data(), buf.size()), XXH64(buf.data(), buf.size(), 0));
  EXPECT_EQ(xxh64(buf.data(), 100, 12345), XXH64(buf.data(), 100, 12345));
  // The group form, with four accumulators, agrees with the serial one.
  EXPECT_EQ(xxh64_group(SerialGroup{}, buf.data(), 4321), XXH64(buf.data(), 4321, 0));
#endif
}

TEST(ZstdFormat, BackwardBitReader) {
  // Stream 0b1_0110_101 in one byte: marker at bit 7, then 0110101 read from the top.
  const uint8_t one[] = {0xB5};
  BackwardBitReader br;
  ASSERT_TRUE(br.init(one, 1));
  EXPECT_EQ(br.remaining_bits(), 7);
  EXPECT_EQ(br.read(3), 0b011u);
  EXPECT_EQ(br.read(4), 0b0101u);
  EXPECT_EQ(br.remaining_bits(), 0);
  EXPECT_EQ(br.read(5), 0u);  // past the start: zeros, and an overflow
  EXPECT_LT(br.remaining_bits(), 0);
  const uint8_t zero_end[] = {0x12, 0x00};
  EXPECT_FALSE(br.init(zero_end, 2));
  EXPECT_FALSE(br.init(zero_end, 0));
  // Long stream: read it back 13 bits at a time against a bit-by-bit model.
  Rng rng(3);
  Bytes s(1000);
  for (auto& b : s) b = static_cast<uint8_t>(rng.next());
  s.back() |= 0x80;
  ASSERT_TRUE(br.init(s.data(), s.size()));
  int64_t bit = static_cast<int64_t>(s.size()) * 8 - 1;  // the marker
  while (br.remaining_bits() >= 13) {
    br.reload();
    uint64_t expect = 0;
    for (int k = 0; k < 13; ++k) {
      --bit;
      expect = (expect << 1) | ((s[bit >> 3] >> (bit & 7)) & 1u);
    }
    ASSERT_EQ(br.read(13), expect);
  }
}

TEST(ZstdFormat, ForwardBitReader) {
  const uint8_t b[] = {0xA5, 0x0F};
  ForwardBitReader br(b, 2);
  EXPECT_EQ(br.read(4), 0x5u);
  EXPECT_EQ(br.read(8), 0xFAu);
  EXPECT_EQ(br.read(4), 0x0u);
  EXPECT_FALSE(br.overrun());
  EXPECT_EQ(br.read(1), 0u);
  EXPECT_TRUE(br.overrun());
}

TEST(ZstdFormat, PredefinedDistributionsFillTheirTables) {
  for (auto code : {SequenceCode::literals_length, SequenceCode::offset, SequenceCode::match_length}) {
    int total = 0;
    int16_t norm[64];
    for (uint32_t s = 0; s < predefined_symbols(code); ++s) {
      norm[s] = predefined_probability(code, s);
      total += norm[s] < 0 ? 1 : norm[s];
    }
    EXPECT_EQ(total, 1 << predefined_log(code));
    FseEntry table[64];
    EXPECT_TRUE(build_fse_table(norm, predefined_symbols(code), predefined_log(code), table));
  }
}

TEST(ZstdFormat, SequenceCodeTables) {
  uint32_t base, bits;
  literals_length_code(35, &base, &bits);
  EXPECT_EQ(base, 65536u);
  EXPECT_EQ(bits, 16u);
  literals_length_code(24, &base, &bits);
  EXPECT_EQ(base, 48u);
  EXPECT_EQ(bits, 4u);
  match_length_code(52, &base, &bits);
  EXPECT_EQ(base, 65539u);
  EXPECT_EQ(bits, 16u);
  match_length_code(42, &base, &bits);
  EXPECT_EQ(base, 99u);
  EXPECT_EQ(bits, 5u);
  match_length_code(43, &base, &bits);
  EXPECT_EQ(base, 131u);
  EXPECT_EQ(bits, 7u);
}

TEST(ZstdFormat, FrameHeaderAgreesWithLibzstd) {
  Rng rng(11);
  for (int i = 0; i < 300; ++i) {
    FrameParams fp;
    fp.level = 1 + static_cast<int>(rng.below(9));
    fp.window_log = rng.below(2) ? 10 + static_cast<int>(rng.below(14)) : 0;
    fp.content_size = rng.below(2) == 0;
    fp.checksum = rng.below(2) == 0;
    const Bytes data = make_data(DataKind::text, rng.below(3) == 0 ? rng.below(300) : rng.below(300000), i);
    const Bytes frame = compress(data, fp);
    ZSTD_frameHeader ref;
    ASSERT_EQ(ZSTD_getFrameHeader(&ref, frame.data(), frame.size()), 0u);
    FrameHeader fh;
    ASSERT_EQ(parse_frame_header(frame.data(), frame.size(), &fh), Status::ok);
    EXPECT_EQ(fh.header_size, ref.headerSize);
    EXPECT_EQ(fh.window_size, ref.windowSize);
    EXPECT_EQ(fh.block_size_max, ref.blockSizeMax);
    EXPECT_EQ(fh.has_checksum, ref.checksumFlag != 0);
    EXPECT_EQ(fh.has_content_size, ref.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN);
    if (fh.has_content_size) {
      EXPECT_EQ(fh.content_size, ref.frameContentSize);
    }
  }
}

}  // namespace
}  // namespace zarrgpu::zstd::testing
