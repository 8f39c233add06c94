#include "codec/bytes_to_bytes/zstd/zstd_codec.hpp"

#include <zstd.h>

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

TEST(Zstd, DecodesAndReproducesNumcodecs) {
  const auto cases = fixtures({"zstd"});
  ASSERT_EQ(cases.size(), 4u);
  for (const Fixture& f : cases) {
    SCOPED_TRACE(f.name);
    auto c = make<BytesToBytesCodec>(f.spec, f.repr);
    EXPECT_TRUE(same(c->decode(f.enc, f.raw.size()), f.raw));
    EXPECT_TRUE(same(c->decode(f.enc, 0), f.raw));
    // numcodecs 0.16 bundles libzstd 1.5.6: the same library gives the same frame.
    if (ZSTD_versionNumber() == 10506) EXPECT_TRUE(same(c->encode(f.raw), f.enc));
    EXPECT_TRUE(same(c->decode(c->encode(f.raw), f.raw.size()), f.raw));
  }
}

// TensorStore writes frames without the content size; streams may hold several frames.
Bytes frame_without_content_size(std::span<const std::byte> data) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  Bytes out(ZSTD_compressBound(data.size()));
  const std::size_t n = ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size());
  ZSTD_freeCCtx(cctx);
  out.resize(n);
  return out;
}

TEST(Zstd, FramesWithoutContentSizeAndConcatenated) {
  std::vector<std::uint32_t> v(100000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(i * 2654435761u);
  const auto raw = as_bytes(v);
  auto c = make<BytesToBytesCodec>(spec_of(R"({"name":"zstd","configuration":{"level":3}})"), {{100000}, DataType::uint32, {}});
  const Bytes f = frame_without_content_size(raw);
  ASSERT_EQ(ZSTD_getFrameContentSize(f.data(), f.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  EXPECT_TRUE(same(c->decode(f, raw.size()), raw));
  EXPECT_TRUE(same(c->decode(f, 0), raw));  // streaming, growing buffer

  const std::size_t half = raw.size() / 2;
  const Bytes a = frame_without_content_size(std::span(raw).first(half));
  const Bytes b = c->encode(std::span(raw).subspan(half));
  std::vector<std::byte> both(a.data(), a.data() + a.size());
  both.insert(both.end(), b.data(), b.data() + b.size());
  EXPECT_TRUE(same(c->decode(both, raw.size()), raw));
  EXPECT_TRUE(same(c->decode(both, 0), raw));
}

TEST(Zstd, NegativeLevelsAndChecksum) {
  std::vector<std::byte> raw(5000, std::byte{7});
  for (const char* spec : {R"({"name":"zstd","configuration":{"level":-7,"checksum":false}})",
                           R"({"name":"zstd","configuration":{"level":22,"checksum":true}})"}) {
    auto c = make<BytesToBytesCodec>(spec_of(spec), {{5000}, DataType::uint8, {}});
    const Bytes e = c->encode(raw);
    EXPECT_TRUE(same(c->decode(e, raw.size()), raw));
  }
}

TEST(Zstd, CorruptInputIsAnErrorNamingZstd) {
  const auto cases = fixtures({"zstd"});
  const Fixture& f = cases[1];  // with checksum
  auto c = make<BytesToBytesCodec>(f.spec, f.repr);
  for (std::size_t expected : {f.raw.size(), std::size_t{0}}) {
    expect_codec_error([&] { c->decode(std::span(f.enc).first(f.enc.size() / 2), expected); }, ErrorKind::corrupt_data, "zstd");
    expect_codec_error([&] { c->decode({}, expected); }, ErrorKind::corrupt_data, "zstd");
    std::vector<std::byte> bad = f.enc;
    bad[bad.size() - 2] ^= std::byte{1};  // the checksum
    expect_codec_error([&] { c->decode(bad, expected); }, ErrorKind::corrupt_data, "zstd");
  }
  expect_codec_error([&] { c->decode(f.enc, f.raw.size() - 1); }, ErrorKind::corrupt_data, "zstd");
  expect_codec_error([&] { c->decode(f.enc, f.raw.size() + 1); }, ErrorKind::corrupt_data, "zstd");
  for (std::size_t pos = 0; pos < f.enc.size(); pos += 3) {
    std::vector<std::byte> bad = f.enc;
    bad[pos] ^= std::byte{0x81};
    try {
      EXPECT_EQ(c->decode(bad, f.raw.size()).size(), f.raw.size());
    } catch (const Error& e) {
      EXPECT_EQ(e.context().codec, "zstd");
    }
  }
}

TEST(Zstd, LevelsOutOfRangeAreInvalidMetadata) {
  // Found by mutation fuzzing under UBSan (issue 33): a level of 2^64 is read
  // as a double, and casting it to int64 was undefined behaviour.
  const ChunkRepresentation r{{8}, DataType::uint8, {}};
  for (const char* spec : {R"({"name":"zstd","configuration":{"level":18446744073709551616,"checksum":false}})",
                           R"({"name":"zstd","configuration":{"level":9223372036854775808,"checksum":false}})",
                           R"({"name":"zstd","configuration":{"level":1e300,"checksum":false}})"}) {
    SCOPED_TRACE(spec);
    expect_codec_error([&] { make_codec(spec_of(spec), r); }, ErrorKind::invalid_metadata, "zstd");
  }
  EXPECT_NO_THROW(make_codec(spec_of(R"({"name":"zstd","configuration":{"level":3.0,"checksum":false}})"), r));
}

TEST(Zstd, NumcodecsAliasKeepsItsName) {
  auto c = make<BytesToBytesCodec>(spec_of(R"({"name":"numcodecs.zstd","configuration":{"level":1}})"), {{1}, DataType::uint8, {}});
  EXPECT_EQ(c->name(), "numcodecs.zstd");
  expect_codec_error([&] { c->decode(std::vector<std::byte>(8), 1); }, ErrorKind::corrupt_data, "numcodecs.zstd");
}

TEST(Zstd, AnyLevelReadsAndEncodingClampsItAsLibzstd) {
  // The level only matters for encoding (issue 31): numcodecs.Zstd(level=100)
  // writes as libzstd's highest level, and such arrays must open.
  const ChunkRepresentation r{{4096}, DataType::uint8, {}};
  std::vector<std::byte> data(4096);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::byte(i * 7 % 13);
  auto top = make<BytesToBytesCodec>(spec_of(R"({"name":"zstd","configuration":{"level":22}})"), r);
  for (const char* spec : {R"({"name":"zstd","configuration":{"level":99}})",
                           R"({"name":"numcodecs.zstd","configuration":{"level":100}})"}) {
    SCOPED_TRACE(spec);
    auto c = make<BytesToBytesCodec>(spec_of(spec), r);
    EXPECT_TRUE(same(c->decode(top->encode(data), data.size()), data));
    EXPECT_TRUE(same(c->encode(data), top->encode(data)));
  }
  auto low = make<BytesToBytesCodec>(spec_of(R"({"name":"zstd","configuration":{"level":-1000000}})"), r);
  EXPECT_TRUE(same(low->decode(low->encode(data), data.size()), data));
}

}  // namespace
}  // namespace zarrgpu::codec
