#include <bit>
#include <cmath>
#include <complex>
#include <limits>

#include "metadata_test_support.hpp"

namespace zarrgpu {
namespace {
using testing::throws_error;

template <class T>
T value_of(const FillValue& f) {
  T v;
  std::memcpy(&v, f.bytes.data(), sizeof(T));
  return v;
}

FillValue v3(const json& j, DataType t) { return parse_fill_value(j, t, 3); }

TEST(FillValue, IntegersAreExactAtTheExtremes) {
  EXPECT_EQ(value_of<std::uint64_t>(v3(json::parse("18446744073709551615"), DataType::uint64)),
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(value_of<std::uint64_t>(v3(json::parse("9223372036854775809"), DataType::uint64)),
            9223372036854775809ull);
  EXPECT_EQ(value_of<std::int64_t>(v3(json::parse("-9223372036854775808"), DataType::int64)),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(value_of<std::int64_t>(v3(json::parse("9223372036854775807"), DataType::int64)),
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(value_of<std::int8_t>(v3(-128, DataType::int8)), -128);
  EXPECT_EQ(value_of<std::uint8_t>(v3(255, DataType::uint8)), 255);
  EXPECT_EQ(value_of<std::int16_t>(v3(-2, DataType::int16)), -2);
  // Bytes past the element stay zero so that equal values compare equal.
  FillValue f = v3(-1, DataType::int16);
  EXPECT_EQ(f.bytes[2], std::byte{0});
  // zarr-python accepts integral floats for integer types.
  EXPECT_EQ(value_of<std::int32_t>(v3(3.0, DataType::int32)), 3);
}

TEST(FillValue, IntegersThatDoNotFitAreRejected) {
  EXPECT_TRUE(throws_error([] { v3(300, DataType::uint8); }, ErrorKind::invalid_metadata,
                           {"fill_value", "300", "uint8"}));
  EXPECT_TRUE(throws_error([] { v3(-1, DataType::uint64); }, ErrorKind::invalid_metadata, {"-1", "uint64"}));
  EXPECT_TRUE(throws_error([] { v3(128, DataType::int8); }, ErrorKind::invalid_metadata, {"int8"}));
  EXPECT_TRUE(throws_error([] { v3(json::parse("9223372036854775808"), DataType::int64); },
                           ErrorKind::invalid_metadata, {"int64", "out of range"}));
  EXPECT_TRUE(throws_error([] { v3(1.5, DataType::int32); }, ErrorKind::invalid_metadata,
                           {"1.5", "int32", "not an integer"}));
  EXPECT_TRUE(throws_error([] { v3("NaN", DataType::int32); }, ErrorKind::invalid_metadata, {"integer"}));
  EXPECT_TRUE(throws_error([] { v3(true, DataType::int32); }, ErrorKind::invalid_metadata, {"integer"}));
  EXPECT_TRUE(throws_error([] { v3(nullptr, DataType::int32); }, ErrorKind::invalid_metadata, {"null"}));
}

TEST(FillValue, FloatSpecialsAndNumbers) {
  EXPECT_TRUE(std::isnan(value_of<float>(v3("NaN", DataType::float32))));
  EXPECT_EQ(value_of<std::uint32_t>(v3("NaN", DataType::float32)), 0x7fc00000u);
  EXPECT_EQ(value_of<std::uint64_t>(v3("NaN", DataType::float64)), 0x7ff8000000000000u);
  EXPECT_EQ(value_of<double>(v3("Infinity", DataType::float64)), INFINITY);
  EXPECT_EQ(value_of<double>(v3("-Infinity", DataType::float64)), -INFINITY);
  EXPECT_EQ(value_of<std::uint16_t>(v3("-Infinity", DataType::float16)), 0xfc00u);
  EXPECT_EQ(value_of<std::uint16_t>(v3("Infinity", DataType::bfloat16)), 0x7f80u);
  EXPECT_EQ(value_of<float>(v3(0.1, DataType::float32)), 0.1f);
  EXPECT_EQ(value_of<double>(v3(0.1, DataType::float64)), 0.1);
  EXPECT_EQ(value_of<double>(v3(7, DataType::float64)), 7.0);
  EXPECT_EQ(value_of<std::uint16_t>(v3(1.0, DataType::float16)), 0x3c00u);
  EXPECT_EQ(value_of<std::uint16_t>(v3(1.0, DataType::bfloat16)), 0x3f80u);
  EXPECT_EQ(value_of<std::uint16_t>(v3(-2.5, DataType::bfloat16)), 0xc020u);
}

TEST(FillValue, HexFloatsKeepExactBits) {
  // Zarr v3 core §"fill_value": a non-canonical NaN survives only as hex.
  EXPECT_EQ(value_of<std::uint32_t>(v3("0x7fc00001", DataType::float32)), 0x7fc00001u);
  EXPECT_EQ(value_of<std::uint32_t>(v3("0xFFC00000", DataType::float32)), 0xffc00000u);
  EXPECT_EQ(value_of<std::uint64_t>(v3("0x7ff0000000000001", DataType::float64)), 0x7ff0000000000001u);
  EXPECT_EQ(value_of<std::uint16_t>(v3("0x7e01", DataType::float16)), 0x7e01u);
  EXPECT_EQ(value_of<std::uint16_t>(v3("0xffc1", DataType::bfloat16)), 0xffc1u);
  EXPECT_EQ(value_of<double>(v3("0x3ff0000000000000", DataType::float64)), 1.0);
}

TEST(FillValue, HexFloatsNeedTheTypesWidth) {
  EXPECT_TRUE(throws_error([] { v3("0x7fc0", DataType::float32); }, ErrorKind::invalid_metadata,
                           {"fill_value", "8 hex digits", "float32"}));
  EXPECT_TRUE(throws_error([] { v3("0x7fc00000", DataType::float16); }, ErrorKind::invalid_metadata,
                           {"4 hex digits", "float16"}));
  EXPECT_TRUE(throws_error([] { v3("0x7fc0000g", DataType::float32); }, ErrorKind::invalid_metadata,
                           {"not a hex float"}));
  EXPECT_TRUE(throws_error([] { v3("nan", DataType::float32); }, ErrorKind::invalid_metadata, {"\"nan\""}));
  // Format 2 has no hex form.
  EXPECT_TRUE(throws_error([] { parse_fill_value("0x7fc00000", DataType::float32, 2); },
                           ErrorKind::invalid_metadata, {"0x7fc00000"}));
}

TEST(FillValue, FloatsBeyondTheTypesRangeAreRejected) {
  EXPECT_TRUE(throws_error([] { v3(1e300, DataType::float32); }, ErrorKind::invalid_metadata,
                           {"float32", "largest finite"}));
  EXPECT_TRUE(throws_error([] { v3(70000, DataType::float16); }, ErrorKind::invalid_metadata, {"float16"}));
  EXPECT_EQ(value_of<std::uint16_t>(v3(65504, DataType::float16)), 0x7bffu);
}

TEST(FillValue, ComplexPairsTakeEveryFloatForm) {
  FillValue f = v3(json::array({"NaN", "0x3f800000"}), DataType::complex64);
  EXPECT_EQ(value_of<std::uint32_t>(f), 0x7fc00000u);
  float im;
  std::memcpy(&im, f.bytes.data() + 4, 4);
  EXPECT_EQ(im, 1.0f);
  auto c = value_of<std::complex<double>>(v3(json::array({-1.5, "-Infinity"}), DataType::complex128));
  EXPECT_EQ(c, std::complex<double>(-1.5, -INFINITY));
  EXPECT_TRUE(throws_error([] { v3(json::array({1.0}), DataType::complex64); }, ErrorKind::invalid_metadata,
                           {"[real, imaginary]", "complex64"}));
  EXPECT_TRUE(throws_error([] { v3(1.0, DataType::complex128); }, ErrorKind::invalid_metadata, {"complex128"}));
  EXPECT_TRUE(throws_error([] { v3(json::array({1.0, "x"}), DataType::complex64); },
                           ErrorKind::invalid_metadata, {"fill_value[1]"}));
}

TEST(FillValue, Bool) {
  EXPECT_EQ(v3(true, DataType::bool_).bytes[0], std::byte{1});
  EXPECT_EQ(v3(false, DataType::bool_).bytes[0], std::byte{0});
  EXPECT_TRUE(throws_error([] { v3(1, DataType::bool_); }, ErrorKind::invalid_metadata, {"true or false"}));
  // Format 2 writers may write a bool's fill value as a number (zarr-python: bool(x)).
  for (const json& j : {json(0), json(0.0)})
    EXPECT_EQ(parse_fill_value(j, DataType::bool_, 2).bytes[0], std::byte{0}) << j;
  for (const json& j : {json(1), json(2), json(-1), json(0.5)})
    EXPECT_EQ(parse_fill_value(j, DataType::bool_, 2).bytes[0], std::byte{1}) << j;
  EXPECT_TRUE(throws_error([] { parse_fill_value(json("0"), DataType::bool_, 2); }, ErrorKind::invalid_metadata,
                           {"true or false"}));
}

TEST(FillValue, NullOnlyInFormat2) {
  FillValue f = parse_fill_value(nullptr, DataType::float32, 2);
  EXPECT_TRUE(f.is_null);
  EXPECT_TRUE(f.is_zero(DataType::float32));
  EXPECT_EQ(fill_value_to_json(f, DataType::float32, 2), json(nullptr));
  EXPECT_TRUE(throws_error([] { v3(nullptr, DataType::float32); }, ErrorKind::invalid_metadata,
                           {"fill_value", "null"}));
}

TEST(FillValue, IsZeroMeansAllBytesZero) {
  EXPECT_TRUE(v3(0, DataType::int32).is_zero(DataType::int32));
  EXPECT_TRUE(v3(0.0, DataType::float64).is_zero(DataType::float64));
  EXPECT_FALSE(v3(-0.0, DataType::float64).is_zero(DataType::float64));
  EXPECT_FALSE(v3("NaN", DataType::float32).is_zero(DataType::float32));
  EXPECT_FALSE(v3(1, DataType::uint8).is_zero(DataType::uint8));
}

TEST(FillValue, WritesWhatZarrPythonWrites) {
  EXPECT_EQ(fill_value_to_json(v3("NaN", DataType::float32), DataType::float32, 3), json("NaN"));
  EXPECT_EQ(fill_value_to_json(v3("-Infinity", DataType::float16), DataType::float16, 3), json("-Infinity"));
  EXPECT_EQ(fill_value_to_json(v3(0.1, DataType::float32), DataType::float32, 3).dump(), "0.10000000149011612");
  EXPECT_EQ(fill_value_to_json(v3(0.1, DataType::float16), DataType::float16, 3).dump(), "0.0999755859375");
  EXPECT_EQ(fill_value_to_json(v3(-0.0, DataType::float64), DataType::float64, 3).dump(), "-0.0");
  EXPECT_EQ(fill_value_to_json(v3(json::parse("18446744073709551615"), DataType::uint64), DataType::uint64, 3).dump(),
            "18446744073709551615");
  EXPECT_EQ(fill_value_to_json(v3(-5, DataType::int8), DataType::int8, 3), json(-5));
  EXPECT_EQ(fill_value_to_json(v3(true, DataType::bool_), DataType::bool_, 3), json(true));
  EXPECT_EQ(fill_value_to_json(v3(json::array({"Infinity", 1.5}), DataType::complex64), DataType::complex64, 3),
            json::array({"Infinity", 1.5}));
}

TEST(FillValue, NonCanonicalNaNRoundTripsAsHexInFormat3Only) {
  FillValue f = v3("0x7fc00001", DataType::float32);
  EXPECT_EQ(fill_value_to_json(f, DataType::float32, 3), json("0x7fc00001"));
  EXPECT_EQ(fill_value_to_json(f, DataType::float32, 2), json("NaN"));
  FillValue neg = v3("0xfff8000000000000", DataType::float64);  // -NaN is not "NaN"
  EXPECT_EQ(fill_value_to_json(neg, DataType::float64, 3), json("0xfff8000000000000"));
  EXPECT_EQ(fill_value_to_json(v3("0xffc1", DataType::bfloat16), DataType::bfloat16, 3), json("0xffc1"));
}

TEST(FillValue, EveryFloat16BitPatternRoundTrips) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    for (DataType t : {DataType::float16, DataType::bfloat16}) {
      FillValue f;
      std::uint16_t b = static_cast<std::uint16_t>(bits);
      std::memcpy(f.bytes.data(), &b, 2);
      json j = json::parse(fill_value_to_json(f, t, 3).dump());  // through text, as in a file
      ASSERT_EQ(parse_fill_value(j, t, 3), f) << v3_name(t) << " " << std::hex << bits << " " << j.dump();
    }
  }
}

}  // namespace
}  // namespace zarrgpu
