#include "codec/array_to_bytes/bytes/bytes_codec.hpp"

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

TEST(BytesCodec, SwapsEachComponentForBigEndian) {
  const CodecSpec big = spec_of(R"({"name":"bytes","configuration":{"endian":"big"}})");
  const CodecSpec little = spec_of(R"({"name":"bytes","configuration":{"endian":"little"}})");
  struct Case { DataType t; std::size_t component; };
  for (Case k : {Case{DataType::int16, 2}, Case{DataType::uint32, 4}, Case{DataType::float64, 8}, Case{DataType::float16, 2},
                 Case{DataType::bfloat16, 2}, Case{DataType::complex64, 4}, Case{DataType::complex128, 8},
                 Case{DataType::uint8, 1}, Case{DataType::bool_, 1}}) {
    SCOPED_TRACE(std::string(v3_name(k.t)));
    const ChunkRepresentation r{{3, 2}, k.t, {}};
    std::vector<std::byte> in(r.nbytes());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::byte(i);
    auto b = make<ArrayToBytesCodec>(big, r);
    const Bytes e = b->encode(in, r);
    ASSERT_EQ(e.size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::size_t w = i / k.component * k.component;
      ASSERT_EQ(e.data()[i], in[w + k.component - 1 - (i - w)]) << i;
    }
    std::vector<std::byte> out(in.size());
    b->decode(e, out, r);
    EXPECT_TRUE(same(out, in));
    auto l = make<ArrayToBytesCodec>(little, r);
    EXPECT_TRUE(same(l->encode(in, r), in));
    EXPECT_TRUE(l->decode_is_copy(r));
    EXPECT_EQ(b->decode_is_copy(r), k.component == 1);
    EXPECT_EQ(l->encoded_size(r), r.nbytes());
  }
}

TEST(BytesCodec, EndianIsRequiredOnlyForMultiByteTypes) {
  const CodecSpec none = spec_of(R"({"name":"bytes"})");
  auto c = make<BytesCodec>(none, {{4}, DataType::uint8, {}});
  EXPECT_FALSE(c->endian().has_value());
  EXPECT_EQ(c->spec(), none);
  expect_codec_error([&] { make_codec(none, {{4}, DataType::int32, {}}); }, ErrorKind::invalid_metadata, "bytes");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"bytes","configuration":{"endian":"middle"}})"), {{4}, DataType::int32, {}}); },
                     ErrorKind::invalid_metadata, "bytes");
}

TEST(BytesCodec, WrongSizeIsCorrupt) {
  const ChunkRepresentation r{{4}, DataType::int32, {}};
  auto c = make<ArrayToBytesCodec>(spec_of(R"({"name":"bytes","configuration":{"endian":"little"}})"), r);
  std::vector<std::byte> in(15), out(16);
  expect_codec_error([&] { c->decode(in, out, r); }, ErrorKind::corrupt_data, "bytes");
}

}  // namespace
}  // namespace zarrgpu::codec
