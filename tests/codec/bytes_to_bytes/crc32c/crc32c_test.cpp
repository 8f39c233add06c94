#include "codec/bytes_to_bytes/crc32c/crc32c.hpp"

#include <cstring>
#include <string_view>

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

std::span<const std::byte> text(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }

TEST(Crc32c, KnownVectors) {
  // RFC 3720 §B.4 and the usual check value.
  EXPECT_EQ(crc32c(text("123456789")), 0xE3069283u);
  EXPECT_EQ(crc32c({}), 0u);
  std::vector<std::byte> zeros(32, std::byte{0}), ones(32, std::byte{0xff}), inc(32), dec(32);
  for (int i = 0; i < 32; ++i) { inc[i] = std::byte(i); dec[i] = std::byte(31 - i); }
  EXPECT_EQ(crc32c(zeros), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones), 0x62A8AB43u);
  EXPECT_EQ(crc32c(inc), 0x46DD794Eu);
  EXPECT_EQ(crc32c(dec), 0x113FDB5Cu);
}

TEST(Crc32c, HardwareAndTablesAgreeAtEveryLengthAndAlignment) {
  std::vector<std::byte> data(1100);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::byte(i * 31 + 7);
  for (std::size_t start = 0; start < 9; ++start)
    for (std::size_t len = 0; start + len <= data.size(); len += 13) {
      const auto s = std::span(data).subspan(start, len);
      ASSERT_EQ(crc32c(s), crc32c_portable(s)) << start << " " << len;
      // Continuation.
      ASSERT_EQ(crc32c(s.subspan(len / 2), crc32c(s.first(len / 2))), crc32c(s));
    }
}

TEST(Crc32c, CodecAppendsLittleEndianAndVerifies) {
  auto c = make<BytesToBytesCodec>(spec_of(R"({"name":"crc32c"})"), {{9}, DataType::uint8, {}});
  const Bytes e = c->encode(text("123456789"));
  ASSERT_EQ(e.size(), 13u);
  const unsigned char tail[4] = {0x83, 0x92, 0x06, 0xE3};
  EXPECT_EQ(std::memcmp(e.data() + 9, tail, 4), 0);
  EXPECT_TRUE(same(c->decode(e, 9), text("123456789")));
  EXPECT_EQ(c->encoded_size(9), 13u);

  std::vector<std::byte> bad(e.data(), e.data() + e.size());
  for (std::size_t i = 0; i < bad.size(); ++i) {
    bad[i] ^= std::byte{0x10};
    expect_codec_error([&] { c->decode(bad, 9); }, ErrorKind::corrupt_data, "crc32c");
    bad[i] ^= std::byte{0x10};
  }
  expect_codec_error([&] { c->decode(std::span(bad).first(3), 0); }, ErrorKind::corrupt_data, "crc32c");
  expect_codec_error([&] { c->decode(bad, 8); }, ErrorKind::corrupt_data, "crc32c");
  std::vector<std::byte> out(8);
  expect_codec_error([&] { c->decode_into(bad, out); }, ErrorKind::corrupt_data, "crc32c");
}

}  // namespace
}  // namespace zarrgpu::codec
