// numcodecs.shuffle, numcodecs.zlib, numcodecs.lz4 against numcodecs' own output.
#include <cstring>

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

TEST(NumcodecsBytes, DecodeAndEncodeMatchNumcodecs) {
  const auto cases = fixtures({"numcodecs.shuffle", "numcodecs.zlib", "numcodecs.lz4"});
  ASSERT_EQ(cases.size(), 7u);
  for (const Fixture& f : cases) expect_matches_numcodecs(*make<BytesToBytesCodec>(f.spec, f.repr), f);
}

TEST(NumcodecsBytes, CorruptInputNamesTheCodec) {
  for (const Fixture& f : fixtures({"numcodecs.zlib", "numcodecs.lz4"})) {
    SCOPED_TRACE(f.name);
    auto c = make<BytesToBytesCodec>(f.spec, f.repr);
    const std::string name = f.spec.name;
    expect_codec_error([&] { c->decode(std::span(f.enc).first(f.enc.size() / 2), f.raw.size()); }, ErrorKind::corrupt_data, name);
    expect_codec_error([&] { c->decode(std::span(f.enc).first(2), 0); }, ErrorKind::corrupt_data, name);
    expect_codec_error([&] { c->decode(f.enc, f.raw.size() + 8); }, ErrorKind::corrupt_data, name);
    expect_codec_error([&] { c->decode(f.enc, f.raw.size() - 8); }, ErrorKind::corrupt_data, name);
    for (std::size_t pos = 0; pos < f.enc.size(); pos += 5) {
      std::vector<std::byte> bad = f.enc;
      bad[pos] ^= std::byte{0xa5};
      try {
        EXPECT_EQ(c->decode(bad, f.raw.size()).size(), f.raw.size());
      } catch (const Error& e) {
        EXPECT_EQ(e.context().codec, name) << e.what();
      }
    }
  }
}

TEST(NumcodecsBytes, Lz4SizeHeaderIsBounded) {
  auto c = make<BytesToBytesCodec>(spec_of(R"({"name":"numcodecs.lz4","configuration":{"acceleration":1}})"), {{4}, DataType::uint8, {}});
  std::vector<std::byte> bad(16, std::byte{0});
  const std::uint32_t huge = 0xfffffff0u;
  std::memcpy(bad.data(), &huge, 4);
  expect_codec_error([&] { c->decode(bad, 0); }, ErrorKind::corrupt_data, "numcodecs.lz4");
}

TEST(NumcodecsBytes, ShuffleNeedsWholeElements) {
  auto c = make<BytesToBytesCodec>(spec_of(R"({"name":"numcodecs.shuffle","configuration":{"elementsize":4}})"), {{6}, DataType::uint8, {}});
  std::vector<std::byte> six(6);
  expect_codec_error([&] { c->decode(six, 6); }, ErrorKind::corrupt_data, "numcodecs.shuffle");
  expect_codec_error([&] { c->decode(six, 8); }, ErrorKind::corrupt_data, "numcodecs.shuffle");
}

}  // namespace
}  // namespace zarrgpu::codec
