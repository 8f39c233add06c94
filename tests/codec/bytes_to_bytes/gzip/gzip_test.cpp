#include "codec/bytes_to_bytes/gzip/gzip_codec.hpp"

#include <zlib.h>

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

TEST(Gzip, DecodesNumcodecsGzip) {
  const auto cases = fixtures({"gzip"});
  ASSERT_EQ(cases.size(), 3u);
  for (const Fixture& f : cases) {
    SCOPED_TRACE(f.name);
    auto c = make<BytesToBytesCodec>(f.spec, f.repr);
    EXPECT_TRUE(same(c->decode(f.enc, f.raw.size()), f.raw));
    EXPECT_TRUE(same(c->decode(f.enc, 0), f.raw));
    const Bytes e = c->encode(f.raw);
    EXPECT_TRUE(same(c->decode(e, f.raw.size()), f.raw));
    // Python's gzip header with mtime 0; the body is zlib's raw deflate, as in numcodecs.
    ASSERT_GE(e.size(), 18u);
    EXPECT_EQ(static_cast<int>(e.data()[9]), 255);
    EXPECT_TRUE(same(std::span(e.data() + 10, e.size() - 10), std::span(f.enc).subspan(10)));
  }
}

TEST(Gzip, ConcatenatedMembersAndZlibStreams) {
  const auto cases = fixtures({"gzip"});
  const Fixture& f = cases[0];
  auto c = make<BytesToBytesCodec>(f.spec, f.repr);
  std::vector<std::byte> two = f.enc;
  two.insert(two.end(), f.enc.begin(), f.enc.end());
  std::vector<std::byte> raw2 = f.raw;
  raw2.insert(raw2.end(), f.raw.begin(), f.raw.end());
  EXPECT_TRUE(same(c->decode(two, raw2.size()), raw2));
  EXPECT_TRUE(same(c->decode(two, 0), raw2));
  // A zlib stream under the gzip name.
  uLongf n = compressBound(f.raw.size());
  std::vector<std::byte> z(n);
  compress2(reinterpret_cast<Bytef*>(z.data()), &n, reinterpret_cast<const Bytef*>(f.raw.data()), f.raw.size(), 6);
  z.resize(n);
  EXPECT_TRUE(same(c->decode(z, f.raw.size()), f.raw));
}

TEST(Gzip, CorruptInputIsAnErrorNamingGzip) {
  const auto cases = fixtures({"gzip"});
  const Fixture& f = cases[1];
  auto c = make<BytesToBytesCodec>(f.spec, f.repr);
  for (std::size_t expected : {f.raw.size(), std::size_t{0}}) {
    expect_codec_error([&] { c->decode(std::span(f.enc).first(f.enc.size() - 9), expected); }, ErrorKind::corrupt_data, "gzip");
    expect_codec_error([&] { c->decode({}, expected); }, ErrorKind::corrupt_data, "gzip");
    std::vector<std::byte> bad = f.enc;
    bad[bad.size() - 6] ^= std::byte{1};  // CRC-32 of the member
    expect_codec_error([&] { c->decode(bad, expected); }, ErrorKind::corrupt_data, "gzip");
    std::vector<std::byte> trailing = f.enc;
    trailing.push_back(std::byte{0x42});
    expect_codec_error([&] { c->decode(trailing, expected); }, ErrorKind::corrupt_data, "gzip");
  }
  expect_codec_error([&] { c->decode(f.enc, f.raw.size() - 4); }, ErrorKind::corrupt_data, "gzip");
  expect_codec_error([&] { c->decode(f.enc, f.raw.size() + 4); }, ErrorKind::corrupt_data, "gzip");
}

}  // namespace
}  // namespace zarrgpu::codec
