// numcodecs.astype, .quantize, .bitround, .packbits and delta over bools:
// numcodecs' bytes, bit for bit (fixtures from tests/codec/make_fixtures.py).
#include <cstring>

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

void check_fixture(const Fixture& f) {
  SCOPED_TRACE(f.name);
  auto c = make<ArrayToArrayCodec>(f.spec, f.repr);
  const ChunkRepresentation e = c->encoded_representation(f.repr);
  ASSERT_EQ(e.nbytes(), f.enc.size());
  if (f.encode_exact) {  // raw is numcodecs' input, enc its output
    std::vector<std::byte> out(f.enc.size());
    c->encode(f.raw, out, f.repr);
    EXPECT_TRUE(same(out, f.enc));
  }
  // Lossless or not, decoding gives what numcodecs decodes (the *_dec cases
  // hold numcodecs' decoding; for the others it is the input).
  if (!f.encode_exact || f.spec.name == "numcodecs.packbits" || f.spec.name == "numcodecs.bitround") {
    std::vector<std::byte> out(f.raw.size());
    c->decode(f.enc, out, f.repr);
    if (f.spec.name == "numcodecs.bitround") EXPECT_TRUE(same(out, f.enc));  // decoding is the identity
    else EXPECT_TRUE(same(out, f.raw));
  }
}

TEST(NumcodecsValueFilters, BitExactWithNumcodecs) {
  const auto cases = fixtures({"numcodecs.astype", "numcodecs.quantize", "numcodecs.bitround", "numcodecs.packbits"});
  ASSERT_EQ(cases.size(), 28u);
  for (const Fixture& f : cases) check_fixture(f);
}

TEST(NumcodecsValueFilters, BoolDeltaDecodesAsNumcodecsDoes) {
  const auto cases = fixtures({"numcodecs.delta"});
  int bools = 0;
  for (const Fixture& f : cases)
    if (f.repr.data_type == DataType::bool_) ++bools, check_fixture(f);
  EXPECT_EQ(bools, 2);
  // numcodecs' cumsum: True from the first True on, whatever follows.
  auto c = make<ArrayToArrayCodec>(spec_of(R"({"name":"numcodecs.delta","configuration":{"dtype":"?"}})"),
                                   {{5}, DataType::bool_, {}});
  const std::vector<std::uint8_t> enc{0, 0, 1, 1, 0}, want{0, 0, 1, 1, 1};
  std::vector<std::uint8_t> out(5);
  c->decode(std::as_bytes(std::span(enc)), std::as_writable_bytes(std::span(out)), {{5}, DataType::bool_, {}});
  EXPECT_EQ(out, want);
}

TEST(NumcodecsValueFilters, DtypesAsNumpyNames) {
  for (const char* dtype : {"int32", "i4", "<i4", "=i4", "intc", "i"}) {
    SCOPED_TRACE(dtype);
    const std::string spec = std::string(R"({"name":"numcodecs.delta","configuration":{"dtype":")") + dtype + "\"}}";
    EXPECT_NO_THROW(make_codec(spec_of(spec.c_str()), {{4}, DataType::int32, {}}));
  }
  for (const char* dtype : {"float64", "f8", "<f8", "double", "float", "d"}) {
    SCOPED_TRACE(dtype);
    const std::string spec = std::string(R"({"name":"numcodecs.fixedscaleoffset","configuration":{"offset":0,"scale":10,"dtype":")") +
                             dtype + R"(","astype":"int16"}})";
    auto c = make<ArrayToArrayCodec>(spec_of(spec.c_str()), {{4}, DataType::float64, {}});
    EXPECT_EQ(c->encoded_representation({{4}, DataType::float64, {}}).data_type, DataType::int16);
  }
  auto q = make<ArrayToArrayCodec>(
      spec_of(R"({"name":"numcodecs.quantize","configuration":{"digits":2,"dtype":"float32","astype":"f2"}})"),
      {{4}, DataType::float32, {}});
  EXPECT_EQ(q->encoded_representation({{4}, DataType::float32, {}}).data_type, DataType::float16);
  auto a = make<ArrayToArrayCodec>(
      spec_of(R"({"name":"numcodecs.astype","configuration":{"encode_dtype":"uint8","decode_dtype":"int64"}})"),
      {{4}, DataType::int64, {}});
  EXPECT_EQ(a->encoded_representation({{4}, DataType::int64, {}}).data_type, DataType::uint8);
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.delta","configuration":{"dtype":"int33"}})"), {{4}, DataType::int32, {}}); },
                     ErrorKind::invalid_metadata, "numcodecs.delta");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.delta","configuration":{"dtype":">int32"}})"), {{4}, DataType::int32, {}}); },
                     ErrorKind::invalid_metadata, "numcodecs.delta");
}

TEST(NumcodecsValueFilters, PackBitsPaddingCountIsChecked) {
  auto c = make<ArrayToArrayCodec>(spec_of(R"({"name":"numcodecs.packbits","configuration":{}})"), {{10}, DataType::bool_, {}});
  const ChunkRepresentation r{{10}, DataType::bool_, {}};
  EXPECT_EQ(c->encoded_representation(r).data_type, DataType::uint8);
  EXPECT_EQ(c->encoded_representation(r).num_elements(), 3u);
  std::vector<std::uint8_t> enc{6, 0b10110000, 0b01000000};
  std::vector<std::uint8_t> out(10);
  c->decode(std::as_bytes(std::span(enc)), std::as_writable_bytes(std::span(out)), r);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{1, 0, 1, 1, 0, 0, 0, 0, 0, 1}));
  enc[0] = 5;  // numcodecs would decode 11 elements: not this chunk
  expect_codec_error([&] { c->decode(std::as_bytes(std::span(enc)), std::as_writable_bytes(std::span(out)), r); },
                     ErrorKind::corrupt_data, "numcodecs.packbits");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.packbits"})"), {{4}, DataType::uint8, {}}); },
                     ErrorKind::unsupported, "numcodecs.packbits");
}

TEST(NumcodecsValueFilters, BadConfigurations) {
  const ChunkRepresentation f4{{4}, DataType::float32, {}};
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.quantize","configuration":{"digits":2,"dtype":"<i4"}})"), {{4}, DataType::int32, {}}); },
                     ErrorKind::invalid_metadata, "numcodecs.quantize");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.quantize","configuration":{"dtype":"<f4"}})"), f4); },
                     ErrorKind::invalid_metadata, "numcodecs.quantize");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.bitround","configuration":{"keepbits":-1}})"), f4); },
                     ErrorKind::invalid_metadata, "numcodecs.bitround");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.bitround","configuration":{"keepbits":3}})"), {{4}, DataType::int32, {}}); },
                     ErrorKind::unsupported, "numcodecs.bitround");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.astype","configuration":{"encode_dtype":"<f4","decode_dtype":"<f8"}})"), f4); },
                     ErrorKind::invalid_metadata, "numcodecs.astype");
  // keepbits above the type's mantissa reads (decoding is the identity) but cannot encode.
  auto b = make<ArrayToArrayCodec>(spec_of(R"({"name":"numcodecs.bitround","configuration":{"keepbits":30}})"), f4);
  std::vector<std::byte> in(16), out(16);
  EXPECT_NO_THROW(b->decode(in, out, f4));
  expect_codec_error([&] { b->encode(in, out, f4); }, ErrorKind::invalid_metadata, "numcodecs.bitround");
}

}  // namespace
}  // namespace zarrgpu::codec
