// numcodecs.delta and numcodecs.fixedscaleoffset: numcodecs' numbers, bit for bit.
#include <cmath>

#include "codec/array_to_array/numcodecs/numpy_scalar.hpp"
#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

TEST(NumcodecsFilters, BitExactWithNumcodecs) {
  const auto cases = fixtures({"numcodecs.delta", "numcodecs.fixedscaleoffset"});
  ASSERT_EQ(cases.size(), 36u);  // with bool deltas and dtypes spelled as NumPy names
  for (const Fixture& f : cases) {
    SCOPED_TRACE(f.name);
    auto c = make<ArrayToArrayCodec>(f.spec, f.repr);
    const ChunkRepresentation e = c->encoded_representation(f.repr);
    ASSERT_EQ(e.nbytes(), f.enc.size());
    if (f.encode_exact) {  // *_enc: raw is numcodecs' input, enc its output
      std::vector<std::byte> out(f.enc.size());
      c->encode(f.raw, out, f.repr);
      EXPECT_TRUE(same(out, f.enc));
    } else {  // *_dec: raw is numcodecs' decoding of enc
      std::vector<std::byte> out(f.raw.size());
      c->decode(f.enc, out, f.repr);
      EXPECT_TRUE(same(out, f.raw));
    }
  }
}

TEST(NumcodecsFilters, ChangesTheDataType) {
  auto c = make<ArrayToArrayCodec>(
      spec_of(R"({"name":"numcodecs.fixedscaleoffset","configuration":{"offset":250,"scale":100,"dtype":"<f8","astype":"<i4"}})"),
      {{8, 8}, DataType::float64, FillValue::of(250.5)});
  const ChunkRepresentation e = c->encoded_representation({{8, 8}, DataType::float64, FillValue::of(250.5)});
  EXPECT_EQ(e.data_type, DataType::int32);
  EXPECT_EQ(e.num_elements(), 64u);
  EXPECT_EQ(e.fill_value, FillValue::of(std::int32_t{50}));
}

TEST(NumcodecsFilters, BadConfiguration) {
  const ChunkRepresentation r{{4}, DataType::int32, {}};
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.delta","configuration":{"dtype":"<f8"}})"), r); },
                     ErrorKind::invalid_metadata, "numcodecs.delta");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.delta","configuration":{"dtype":"nonsense"}})"), r); },
                     ErrorKind::invalid_metadata, "numcodecs.delta");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"numcodecs.delta","configuration":{"dtype":"<c8"}})"), r); },
                     ErrorKind::unsupported, "numcodecs.delta");
  expect_codec_error(
      [&] { make_codec(spec_of(R"({"name":"numcodecs.fixedscaleoffset","configuration":{"dtype":"<i4","offset":"x","scale":1}})"), r); },
      ErrorKind::invalid_metadata, "numcodecs.fixedscaleoffset");
}

TEST(NumpyScalar, HalfConversionsRoundToNearestEven) {
  using numpy::double_to_half;
  EXPECT_EQ(double_to_half(1.0).bits, 0x3c00);
  EXPECT_EQ(double_to_half(65504.0).bits, 0x7bff);
  EXPECT_EQ(double_to_half(65520.0).bits, 0x7c00);
  EXPECT_EQ(double_to_half(65519.99).bits, 0x7bff);
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -24)).bits, 0x0001);
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -25)).bits, 0x0000);  // tie to even
  EXPECT_EQ(double_to_half(std::ldexp(1.5, -25)).bits, 0x0001);
  EXPECT_EQ(double_to_half(-0.0).bits, 0x8000);
  EXPECT_EQ(double_to_half(1.0 + std::ldexp(1.0, -11)).bits, 0x3c00);  // tie to even
  EXPECT_EQ(double_to_half(1.0 + 3 * std::ldexp(1.0, -11)).bits, 0x3c02);
  EXPECT_TRUE(std::isnan(numpy::half_to_float(double_to_half(NAN))));
  for (std::uint32_t b = 0; b < 0x7c00; ++b)
    ASSERT_EQ(numpy::float_to_half(numpy::half_to_float({static_cast<std::uint16_t>(b)})).bits, b);
}

}  // namespace
}  // namespace zarrgpu::codec
