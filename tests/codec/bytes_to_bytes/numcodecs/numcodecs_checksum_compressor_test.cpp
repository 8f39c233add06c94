// numcodecs.bz2, .lzma and the 32-bit checksum codecs (crc32, adler32,
// crc32c, fletcher32) against numcodecs' own output; corrupt and truncated
// input is Error(corrupt_data) naming the codec, never other data.
#include <cstring>

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

const std::initializer_list<std::string_view> kChecksums = {"numcodecs.crc32", "numcodecs.adler32", "numcodecs.crc32c",
                                                            "numcodecs.fletcher32"};
const std::initializer_list<std::string_view> kCompressors = {"numcodecs.bz2", "numcodecs.lzma"};

TEST(NumcodecsChecksums, DecodeAndEncodeMatchNumcodecs) {
  const auto cases = fixtures(kChecksums);
  ASSERT_EQ(cases.size(), 8u);
  for (const Fixture& f : cases) {
    auto c = make<BytesToBytesCodec>(f.spec, f.repr);
    expect_matches_numcodecs(*c, f);
    EXPECT_EQ(c->encoded_size(f.raw.size()), f.enc.size());
  }
}

TEST(NumcodecsChecksums, EveryFlippedBitIsAMismatch) {
  for (const Fixture& f : fixtures(kChecksums)) {
    SCOPED_TRACE(f.name);
    auto c = make<BytesToBytesCodec>(f.spec, f.repr);
    const std::string name = f.spec.name;
    // Payload bytes and checksum bytes, at both ends.
    for (std::size_t pos : {std::size_t{0}, std::size_t{3}, std::size_t{4}, f.enc.size() / 2, f.enc.size() - 5,
                            f.enc.size() - 1}) {
      std::vector<std::byte> bad = f.enc;
      bad[pos] ^= std::byte{0x10};
      expect_codec_error([&] { c->decode(bad, f.raw.size()); }, ErrorKind::corrupt_data, name);
    }
    expect_codec_error([&] { c->decode(std::span(f.enc).first(3), 0); }, ErrorKind::corrupt_data, name);
    expect_codec_error([&] { c->decode(std::span(f.enc).first(f.enc.size() - 1), 0); }, ErrorKind::corrupt_data, name);
    expect_codec_error([&] { c->decode(f.enc, f.raw.size() + 1); }, ErrorKind::corrupt_data, name);
  }
}

TEST(NumcodecsChecksums, LayoutAndConfiguration) {
  const ChunkRepresentation r{{3}, DataType::uint8, {}};
  const std::vector<std::byte> abc{std::byte{'a'}, std::byte{'b'}, std::byte{'c'}};
  // zlib.crc32(b"abc") = 0x352441c2, little-endian before the bytes.
  const Bytes crc = make<BytesToBytesCodec>(spec_of(R"({"name":"numcodecs.crc32","configuration":{}})"), r)->encode(abc);
  ASSERT_EQ(crc.size(), 7u);
  EXPECT_EQ(crc.data()[0], std::byte{0xc2});
  EXPECT_EQ(crc.data()[3], std::byte{0x35});
  EXPECT_EQ(crc.data()[4], std::byte{'a'});
  // numcodecs.crc32c (CRC-32C after the bytes) reads what the v3 crc32c codec writes.
  const Bytes v3 = make<BytesToBytesCodec>(spec_of(R"({"name":"crc32c"})"), r)->encode(abc);
  EXPECT_TRUE(same(make<BytesToBytesCodec>(spec_of(R"({"name":"numcodecs.crc32c"})"), r)->decode(v3, 3), abc));
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.crc32","configuration":{"location":"middle"}})"), r); },
                     ErrorKind::invalid_metadata, "numcodecs.crc32");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.fletcher32","configuration":{"location":"start"}})"), r); },
                     ErrorKind::invalid_metadata, "numcodecs.fletcher32");
  // spec() keeps "location" only when it was written (as numcodecs' get_config).
  EXPECT_EQ(make_codec(spec_of(R"({"name":"numcodecs.adler32"})"), r)->spec().configuration, json::object());
  EXPECT_EQ(make_codec(spec_of(R"({"name":"numcodecs.adler32","configuration":{"location":"end"}})"), r)->spec().configuration,
            (json{{"location", "end"}}));
}

TEST(NumcodecsCompressors, DecodeAndEncodeMatchNumcodecs) {
  const auto cases = fixtures(kCompressors);
  ASSERT_EQ(cases.size(), 7u);
  for (const Fixture& f : cases) expect_matches_numcodecs(*make<BytesToBytesCodec>(f.spec, f.repr), f);
}

TEST(NumcodecsCompressors, CorruptAndTruncatedInputNamesTheCodec) {
  for (const Fixture& f : fixtures(kCompressors)) {
    SCOPED_TRACE(f.name);
    auto c = make<BytesToBytesCodec>(f.spec, f.repr);
    const std::string name = f.spec.name;
    for (std::size_t keep : {std::size_t{0}, std::size_t{2}, f.enc.size() / 2, f.enc.size() - 1}) {
      expect_codec_error([&] { c->decode(std::span(f.enc).first(keep), f.raw.size()); }, ErrorKind::corrupt_data, name);
      expect_codec_error([&] { c->decode(std::span(f.enc).first(keep), 0); }, ErrorKind::corrupt_data, name);
    }
    expect_codec_error([&] { c->decode(f.enc, f.raw.size() + 8); }, ErrorKind::corrupt_data, name);
    expect_codec_error([&] { c->decode(f.enc, f.raw.size() - 8); }, ErrorKind::corrupt_data, name);
    // Every stream here carries a checksum (bzip2's CRCs, xz's check, LZMA's
    // end marker): a flipped byte is an error or, where the format cannot
    // tell, never a crash.
    for (std::size_t pos = 0; pos < f.enc.size(); pos += 7) {
      std::vector<std::byte> bad = f.enc;
      bad[pos] ^= std::byte{0xa5};
      try {
        const Bytes d = c->decode(bad, f.raw.size());
        EXPECT_EQ(d.size(), f.raw.size());
        if (name == "numcodecs.bz2" || f.spec.configuration.value("format", 0) == 1)
          EXPECT_TRUE(same(d, f.raw)) << "byte " << pos;
      } catch (const Error& e) {
        EXPECT_EQ(e.context().codec, name) << e.what();
        EXPECT_EQ(e.kind(), ErrorKind::corrupt_data) << e.what();
      }
    }
  }
}

TEST(NumcodecsCompressors, DecodeAtMostStopsAtTheBound) {
  // A compressor after another (issue 33): a small chunk of zeros that
  // decodes to 8 MiB stops at the bound, never grows to it.
  const ChunkRepresentation r{{1}, DataType::uint8, {}};
  const std::vector<std::byte> zeros(8 << 20);
  for (const char* spec : {R"({"name":"numcodecs.bz2","configuration":{"level":9}})",
                           R"({"name":"numcodecs.lzma","configuration":{}})",
                           R"({"name":"numcodecs.lzma","configuration":{"format":2}})"}) {
    SCOPED_TRACE(spec);
    auto c = make<BytesToBytesCodec>(spec_of(spec), r);
    const Bytes bomb = c->encode(zeros);
    ASSERT_LT(bomb.size(), std::size_t{1} << 16);
    expect_codec_error([&] { c->decode_at_most(bomb, 4096); }, ErrorKind::corrupt_data, c->spec().name);
    EXPECT_TRUE(same(c->decode_at_most(bomb, zeros.size()), zeros));
    EXPECT_TRUE(same(c->decode_at_most(bomb, zeros.size() + 1), zeros));
    EXPECT_GE(c->max_encoded_size(zeros.size()), zeros.size());
  }
}

TEST(NumcodecsCompressors, LzmaHeaderCannotAskForMoreMemoryThanTheChunkNeeds) {
  // Issue 33: an .lzma header naming a 4 GiB dictionary before a few bytes of
  // data is refused as corrupt, not allocated; the largest preset's
  // dictionary (64 MiB) still decodes a small chunk.
  const ChunkRepresentation r{{1}, DataType::uint8, {}};
  const std::vector<std::byte> data(4096, std::byte{7});
  auto alone = make<BytesToBytesCodec>(spec_of(R"({"name":"numcodecs.lzma","configuration":{"format":2}})"), r);
  Bytes bomb = alone->encode(data);
  ASSERT_GT(bomb.size(), 5u);
  std::memset(bomb.data() + 1, 0xff, 4);  // dictionary size, little-endian uint32 after the properties byte
  expect_codec_error([&] { alone->decode(bomb, data.size()); }, ErrorKind::corrupt_data, "numcodecs.lzma");
  expect_codec_error([&] { alone->decode_at_most(bomb, data.size()); }, ErrorKind::corrupt_data, "numcodecs.lzma");
  try {
    alone->decode(bomb, data.size());
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dictionary"), std::string::npos) << e.what();
  }
  for (const char* spec : {R"({"name":"numcodecs.lzma","configuration":{"preset":9}})",
                           R"({"name":"numcodecs.lzma","configuration":{"format":2,"preset":9}})"}) {
    auto c = make<BytesToBytesCodec>(spec_of(spec), r);
    EXPECT_TRUE(same(c->decode(c->encode(data), data.size()), data)) << spec;
  }
}

TEST(NumcodecsCompressors, ConfigurationsAndLevels) {
  const ChunkRepresentation r{{4}, DataType::uint8, {}};
  expect_codec_error(
      [&] { make_codec(spec_of(R"({"name":"numcodecs.lzma","configuration":{"format":3,"filters":[{"id":4},{"id":33}]}})"), r); },
      ErrorKind::unsupported, "numcodecs.lzma");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.lzma","configuration":{"format":3}})"), r); },
                     ErrorKind::invalid_metadata, "numcodecs.lzma");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.lzma","configuration":{"format":7}})"), r); },
                     ErrorKind::invalid_metadata, "numcodecs.lzma");
  // numcodecs.LZMA().get_config() lists every member.
  EXPECT_EQ(make_codec(spec_of(R"({"name":"numcodecs.lzma"})"), r)->spec().configuration,
            (json{{"format", 1}, {"check", -1}, {"preset", nullptr}, {"filters", nullptr}}));
  EXPECT_EQ(make_codec(spec_of(R"({"name":"numcodecs.bz2"})"), r)->spec().configuration, (json{{"level", 1}}));
  // A level only matters for encoding: out of range, it reads but does not encode.
  const std::vector<std::byte> data(100, std::byte{7});
  for (const char* spec : {R"({"name":"numcodecs.bz2","configuration":{"level":12}})",
                           R"({"name":"numcodecs.lzma","configuration":{"preset":42}})"}) {
    SCOPED_TRACE(spec);
    auto c = make<BytesToBytesCodec>(spec_of(spec), r);
    expect_codec_error([&] { c->encode(data); }, ErrorKind::invalid_metadata, c->spec().name);
  }
  auto bz = make<BytesToBytesCodec>(spec_of(R"({"name":"numcodecs.bz2","configuration":{"level":12}})"), r);
  auto bz9 = make<BytesToBytesCodec>(spec_of(R"({"name":"numcodecs.bz2","configuration":{"level":9}})"), r);
  EXPECT_TRUE(same(bz->decode(bz9->encode(data), data.size()), data));
}

}  // namespace
}  // namespace zarrgpu::codec
