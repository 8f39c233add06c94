// from_numpy_dtype: every spelling numpy.dtype() takes for these types, as
// NumPy 2 resolves them on LP64 Linux (numcodecs filter configurations are
// written through numpy.dtype, so "int32" and "f8" appear beside "<i4").
#include <gtest/gtest.h>

#include "core/numpy_dtype_spelling.hpp"

namespace zarrgpu {
namespace {

struct Case {
  const char* s;
  DataType t;
  Endian e;
};

TEST(FromNumpyDtype, EverySpelling) {
  const Case cases[] = {
      {"int32", DataType::int32, Endian::little},     {"i4", DataType::int32, Endian::little},
      {"<i4", DataType::int32, Endian::little},       {">i4", DataType::int32, Endian::big},
      {"=i4", DataType::int32, Endian::little},       {"intc", DataType::int32, Endian::little},
      {"i", DataType::int32, Endian::little},         {">i", DataType::int32, Endian::big},
      {"float64", DataType::float64, Endian::little}, {"f8", DataType::float64, Endian::little},
      {"<f8", DataType::float64, Endian::little},     {">f8", DataType::float64, Endian::big},
      {"double", DataType::float64, Endian::little},  {"float", DataType::float64, Endian::little},
      {"d", DataType::float64, Endian::little},       {"float32", DataType::float32, Endian::little},
      {"single", DataType::float32, Endian::little},  {"f", DataType::float32, Endian::little},
      {"float16", DataType::float16, Endian::little}, {"half", DataType::float16, Endian::little},
      {"e", DataType::float16, Endian::little},       {"int", DataType::int64, Endian::little},
      {"long", DataType::int64, Endian::little},      {"int_", DataType::int64, Endian::little},
      {"intp", DataType::int64, Endian::little},      {"q", DataType::int64, Endian::little},
      {"l", DataType::int64, Endian::little},         {"uint", DataType::uint64, Endian::little},
      {"L", DataType::uint64, Endian::little},        {"Q", DataType::uint64, Endian::little},
      {"uint8", DataType::uint8, Endian::little},     {"u1", DataType::uint8, Endian::little},
      {"|u1", DataType::uint8, Endian::little},       {"B", DataType::uint8, Endian::little},
      {"ubyte", DataType::uint8, Endian::little},     {"int8", DataType::int8, Endian::little},
      {"byte", DataType::int8, Endian::little},       {"b", DataType::int8, Endian::little},
      {"|i1", DataType::int8, Endian::little},        {"int16", DataType::int16, Endian::little},
      {"short", DataType::int16, Endian::little},     {"h", DataType::int16, Endian::little},
      {"uint16", DataType::uint16, Endian::little},   {">u2", DataType::uint16, Endian::big},
      {"H", DataType::uint16, Endian::little},        {"uint32", DataType::uint32, Endian::little},
      {"I", DataType::uint32, Endian::little},        {"bool", DataType::bool_, Endian::little},
      {"?", DataType::bool_, Endian::little},         {"b1", DataType::bool_, Endian::little},
      {"|b1", DataType::bool_, Endian::little},       {"complex64", DataType::complex64, Endian::little},
      {"c8", DataType::complex64, Endian::little},    {"F", DataType::complex64, Endian::little},
      {"complex", DataType::complex128, Endian::little}, {"D", DataType::complex128, Endian::little},
      {">c16", DataType::complex128, Endian::big},
  };
  for (const Case& c : cases) {
    Endian e = c.e == Endian::big ? Endian::little : Endian::big;
    const auto t = from_numpy_dtype(c.s, &e);
    ASSERT_TRUE(t.has_value()) << c.s;
    EXPECT_EQ(*t, c.t) << c.s;
    EXPECT_EQ(e, c.e) << c.s;
  }
}

TEST(FromNumpyDtype, RejectsWhatNumpyRejects) {
  for (const char* s : {"", "int33", "<int32", ">float64", "i3", "f16", "float128", "g", "S4", "<U3", "O", "bfloat16",
                        "b2", "i4 ", "int32x", "M8[s]"})
    EXPECT_FALSE(from_numpy_dtype(s, nullptr).has_value()) << s;
}

}  // namespace
}  // namespace zarrgpu
