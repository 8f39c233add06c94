#include "codec/bytes_to_bytes/blosc/blosc_codec.hpp"

#include <cstring>

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

TEST(Blosc, DecodesNumcodecsEveryCnameAndShuffle) {
  const auto cases = fixtures({"blosc", "numcodecs.blosc"});
  ASSERT_EQ(cases.size(), 16u);
  for (const Fixture& f : cases) {
    SCOPED_TRACE(f.name);
    auto c = make<BytesToBytesCodec>(f.spec, f.repr);
    const Bytes d = c->decode(f.enc, f.raw.size());
    EXPECT_TRUE(same(d, f.raw));
    const Bytes unknown = c->decode(f.enc, 0);
    EXPECT_TRUE(same(unknown, f.raw));
    // Our frames decode back, and with the same library as numcodecs' they
    // are the same bytes.
    const Bytes e = c->encode(f.raw);
    EXPECT_TRUE(same(c->decode(e, f.raw.size()), f.raw));
  }
}

TEST(Blosc, EncodesWithTypesizeAndBlocksizeInTheHeader) {
  auto c = make<BytesToBytesCodec>(
      spec_of(R"({"name":"blosc","configuration":{"cname":"zstd","clevel":3,"shuffle":"bitshuffle","typesize":8,"blocksize":4096}})"),
      {{1000}, DataType::float64, {}});
  std::vector<double> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i * 0.25;
  const auto raw = as_bytes(v);
  const Bytes e = c->encode(raw);
  EXPECT_EQ(static_cast<int>(e.data()[3]), 8);  // typesize
  std::uint32_t blocksize;
  std::memcpy(&blocksize, e.data() + 8, 4);
  EXPECT_EQ(blocksize, 4096u);
  EXPECT_TRUE(static_cast<int>(e.data()[2]) & 0x4);  // bitshuffle flag
  EXPECT_TRUE(same(c->decode(e, raw.size()), raw));
}

TEST(Blosc, TypesizeDefaultsToTheDataType) {
  auto c = make<BloscCodec>(spec_of(R"({"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"shuffle"}})"),
                            {{10}, DataType::int16, {}});
  EXPECT_EQ(c->spec().configuration["typesize"], 2);
}

TEST(Blosc, RejectsBadHeadersBeforeDecompressing) {
  const auto cases = fixtures({"blosc"});
  const Fixture& f = cases.front();
  auto c = make<BytesToBytesCodec>(f.spec, f.repr);
  auto corrupt = [&](auto mutate, std::size_t expected) {
    std::vector<std::byte> bad = f.enc;
    mutate(bad);
    expect_codec_error([&] { c->decode(bad, expected); }, ErrorKind::corrupt_data, "blosc");
  };
  // Wrong expected size.
  corrupt([](auto&) {}, f.raw.size() + 1);
  // Truncated: cbytes now exceeds the input.
  corrupt([](auto& b) { b.resize(b.size() - 1); }, f.raw.size());
  corrupt([](auto& b) { b.resize(10); }, f.raw.size());
  // nbytes lies (bigger, and over blosc's limit).
  corrupt([](auto& b) { std::uint32_t n = 1u << 30; std::memcpy(b.data() + 4, &n, 4); }, 0);
  corrupt([](auto& b) { std::uint32_t n = 0xffffffffu; std::memcpy(b.data() + 4, &n, 4); }, 0);
  // cbytes lies.
  corrupt([](auto& b) { std::uint32_t n = 0xfffffff0u; std::memcpy(b.data() + 12, &n, 4); }, f.raw.size());
  // Unknown version.
  corrupt([](auto& b) { b[0] = std::byte{99}; }, f.raw.size());
  // Zero blocksize.
  corrupt([](auto& b) { std::uint32_t n = 0; std::memcpy(b.data() + 8, &n, 4); }, f.raw.size());
  // Garbage body: blosc must fail cleanly, whatever bytes follow the header.
  for (std::size_t pos = 16; pos < f.enc.size(); pos += 7) {
    std::vector<std::byte> bad = f.enc;
    bad[pos] ^= std::byte{0x5a};
    try {
      Bytes d = c->decode(bad, f.raw.size());
      EXPECT_EQ(d.size(), f.raw.size());
    } catch (const Error& e) {
      EXPECT_EQ(e.context().codec, "blosc");
    }
  }
}

TEST(Blosc, RejectsBadConfiguration) {
  const ChunkRepresentation r{{4}, DataType::float32, {}};
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"blosc","configuration":{"cname":"lzma"}})"), r); },
                     ErrorKind::invalid_metadata, "blosc");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"blosc","configuration":{"cname":"lz4","shuffle":"sometimes"}})"), r); },
                     ErrorKind::invalid_metadata, "blosc");
}

TEST(Blosc, ClevelOutOfRangeReadsButDoesNotEncode) {
  // Only encoding uses clevel (issue 31: levels are not checked on read).
  const ChunkRepresentation r{{64}, DataType::float32, {}};
  std::vector<std::byte> data(256, std::byte{3});
  auto good = make<BytesToBytesCodec>(spec_of(R"({"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":4}})"), r);
  auto c = make<BytesToBytesCodec>(spec_of(R"({"name":"blosc","configuration":{"cname":"lz4","clevel":12,"shuffle":"shuffle","typesize":4}})"), r);
  EXPECT_TRUE(same(c->decode(good->encode(data), data.size()), data));
  expect_codec_error([&] { c->encode(data); }, ErrorKind::invalid_metadata, "blosc");
}

TEST(Blosc, DefaultsByName) {
  // By name alone: zarr-python's BloscCodec defaults under "blosc",
  // numcodecs.Blosc's under "numcodecs.blosc".
  const json v3 = make_codec(spec_of(R"({"name":"blosc"})"), {{4}, DataType::float32, {}})->spec().configuration;
  EXPECT_EQ(v3, (json{{"cname", "zstd"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"typesize", 4}, {"blocksize", 0}}));
  EXPECT_EQ(make_codec(spec_of(R"({"name":"blosc"})"), {{4}, DataType::uint8, {}})->spec().configuration["shuffle"],
            "bitshuffle");
  EXPECT_EQ(make_codec(spec_of(R"({"name":"numcodecs.blosc"})"), {{4}, DataType::float32, {}})->spec().configuration,
            (json{{"cname", "lz4"}, {"clevel", 5}, {"shuffle", 1}, {"blocksize", 0}}));
}

}  // namespace
}  // namespace zarrgpu::codec
