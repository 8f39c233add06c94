// zarr-python 3's NumPy-derived data types (zarr/core/dtype/npy/): the forms
// of data_type, fill_value and the v2 dtype strings, as zarr-python 3.1 writes
// them (documents below copied from stores it wrote), read and written back.
#include <limits>

#include "metadata_test_support.hpp"

namespace zarrgpu {
namespace {
using testing::throws_error;

json array_doc(const json& data_type, const json& fill_value, const json& codecs) {
  return {{"zarr_format", 3},
          {"node_type", "array"},
          {"shape", {3}},
          {"data_type", data_type},
          {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {2}}}}}},
          {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
          {"fill_value", fill_value},
          {"codecs", codecs},
          {"attributes", json::object()}};
}

ArrayMetadata v3(const json& doc) { return std::get<ArrayMetadata>(parse_zarr_json(doc, "a")); }

std::int64_t time_fill(const FillValue& f) {
  std::int64_t v = 0;
  std::memcpy(&v, f.bytes.data(), 8);
  return v;
}

TEST(StringAndTimeTypes, NumpyStringsOfEveryKind) {
  Endian e = Endian::little;
  auto s = from_numpy_str("|S4", &e);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, DataType::fixed_length(DataTypeKind::null_terminated_bytes, 4));
  EXPECT_EQ(size_of(*s), 4u);
  EXPECT_EQ(component_size(*s), 1u);
  auto u = from_numpy_str(">U5", &e);
  ASSERT_TRUE(u);
  EXPECT_EQ(e, Endian::big);
  EXPECT_EQ(*u, DataType::fixed_length(DataTypeKind::fixed_length_utf32, 20));
  EXPECT_EQ(component_size(*u), 4u);  // byte swapping is per UTF-32 code unit
  EXPECT_EQ(numpy_str(*u), "<U5");
  EXPECT_EQ(numpy_str(*from_numpy_str("|V8", &e)), "|V8");
  auto ns = from_numpy_str("<M8[ns]", &e);
  ASSERT_TRUE(ns);
  EXPECT_EQ(*ns, DataType::time(DataTypeKind::datetime64, TimeUnit::ns));
  EXPECT_EQ(size_of(*ns), 8u);
  EXPECT_EQ(numpy_str(*from_numpy_str("<M8[10s]", &e)), "<M8[10s]");
  EXPECT_EQ(numpy_str(*from_numpy_str(">m8", &e)), "<m8");
  EXPECT_EQ(*from_numpy_str("<m8[us]", &e), DataType::time(DataTypeKind::timedelta64, TimeUnit::us));
  // "|O" depends on its object codec; nonsense stays unknown.
  for (const char* bad : {"|O", "|S0", "<M4[s]", "<M8[parsec]", "<M8[0s]", "<U", "<f4[s]"})
    EXPECT_FALSE(from_numpy_str(bad, &e)) << bad;
}

TEST(StringAndTimeTypes, V3DocumentsAsZarrPythonWritesThem) {
  struct Case {
    json data_type, fill;
    DataType want;
  };
  const json bytes_le = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  const json bytes_plain = json::array({{{"name", "bytes"}}});
  const json vlen_utf8 = json::array({{{"name", "vlen-utf8"}, {"configuration", json::object()}}});
  const json vlen_bytes = json::array({{{"name", "vlen-bytes"}, {"configuration", json::object()}}});
  const Case cases[] = {
      {{{"name", "null_terminated_bytes"}, {"configuration", {{"length_bytes", 4}}}}, "YWI=",
       DataType::fixed_length(DataTypeKind::null_terminated_bytes, 4)},
      {{{"name", "fixed_length_utf32"}, {"configuration", {{"length_bytes", 12}}}}, "h\xc3\xa9",
       DataType::fixed_length(DataTypeKind::fixed_length_utf32, 12)},
      {{{"name", "raw_bytes"}, {"configuration", {{"length_bytes", 2}}}}, "AQI=",
       DataType::fixed_length(DataTypeKind::raw_bytes, 2)},
      {"string", "x", DataType::string},
      {"variable_length_bytes", "AXo=", DataType::bytes},
      {{{"name", "numpy.datetime64"}, {"configuration", {{"unit", "s"}, {"scale_factor", 10}}}},
       json(std::numeric_limits<std::int64_t>::min()), DataType::time(DataTypeKind::datetime64, TimeUnit::s, 10)},
      {{{"name", "numpy.timedelta64"}, {"configuration", {{"unit", "generic"}, {"scale_factor", 1}}}}, 5,
       DataType::time(DataTypeKind::timedelta64, TimeUnit::generic)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.data_type.dump());
    const json& codecs = c.want == DataType::string  ? vlen_utf8
                         : c.want == DataType::bytes ? vlen_bytes
                         : component_size(c.want) == 1 ? bytes_plain
                                                       : bytes_le;
    const json doc = array_doc(c.data_type, c.fill, codecs);
    const ArrayMetadata m = v3(doc);
    EXPECT_EQ(m.data_type, c.want);
    const json back = to_zarr_json(m);
    EXPECT_EQ(back["data_type"], c.data_type);
    EXPECT_EQ(back["fill_value"], c.fill);
    // zarr-python reads the codec with or without its empty configuration.
    EXPECT_EQ(back["codecs"][0]["name"], codecs[0]["name"]);
    EXPECT_EQ(back["codecs"][0].value("configuration", json::object()), codecs[0].value("configuration", json::object()));
  }
}

TEST(StringAndTimeTypes, FillValueBytes) {
  const auto u3 = DataType::fixed_length(DataTypeKind::fixed_length_utf32, 12);
  const FillValue u = parse_fill_value("h\xc3\xa9", u3, 3);  // "hé"
  ASSERT_GE(u.bytes.size(), 12u);
  const unsigned char want_u[12] = {'h', 0, 0, 0, 0xe9, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(u.bytes.data(), want_u, 12), 0);
  // Too long for the element: cut, as zarr-python's cast_scalar does.
  EXPECT_EQ(fill_value_to_json(parse_fill_value("abcdef", u3, 3), u3, 3), "abc");

  const auto s4 = DataType::fixed_length(DataTypeKind::null_terminated_bytes, 4);
  const FillValue s = parse_fill_value("YWI=", s4, 2);  // b"ab", v2 writes base64 too
  EXPECT_EQ(std::memcmp(s.bytes.data(), "ab\0\0", 4), 0);
  EXPECT_EQ(fill_value_to_json(s, s4, 2), "YWI=");

  const FillValue v = parse_fill_value("", DataType::string, 3);
  EXPECT_TRUE(v.bytes.empty());
  // zarr-python 2 wrote numbers for object arrays; zarr-python 3 reads str(value).
  EXPECT_EQ(fill_value_to_json(parse_fill_value(0, DataType::string, 2), DataType::string, 2), "0");
  const FillValue b = parse_fill_value("AP8=", DataType::bytes, 3);
  ASSERT_EQ(b.bytes.size(), 2u);
  EXPECT_EQ(b.bytes[1], std::byte{0xff});

  const auto ns = DataType::time(DataTypeKind::datetime64, TimeUnit::ns);
  EXPECT_EQ(time_fill(parse_fill_value("NaT", ns, 3)), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(fill_value_to_json(parse_fill_value("NaT", ns, 3), ns, 3), json(std::numeric_limits<std::int64_t>::min()));
  EXPECT_EQ(time_fill(parse_fill_value(18262, ns, 2)), 18262);
  // A format 2 null reads as the type's default: NaT for times, "" for strings.
  const FillValue null_time = parse_fill_value(nullptr, ns, 2);
  EXPECT_TRUE(null_time.is_null);
  EXPECT_EQ(time_fill(null_time), std::numeric_limits<std::int64_t>::min());
  EXPECT_FALSE(null_time.is_zero(ns));
  EXPECT_TRUE(parse_fill_value(nullptr, DataType::string, 2).bytes.empty());
}

TEST(StringAndTimeTypes, BadFillValuesAndConfigurationsAreNamed) {
  const auto s4 = DataType::fixed_length(DataTypeKind::null_terminated_bytes, 4);
  EXPECT_TRUE(throws_error([&] { parse_fill_value("not base64!", s4, 3); }, ErrorKind::invalid_metadata,
                           {"not base64", "null_terminated_bytes[4 bytes]"}));
  EXPECT_TRUE(throws_error([&] { parse_fill_value(1.5, DataType::time(DataTypeKind::datetime64, TimeUnit::s), 3); },
                           ErrorKind::invalid_metadata, {"fill_value"}));
  EXPECT_TRUE(throws_error([&] { parse_fill_value(json::array(), DataType::bytes, 3); }, ErrorKind::invalid_metadata,
                           {"base64"}));
  const json codecs = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  EXPECT_TRUE(throws_error(
      [&] { v3(array_doc({{"name", "fixed_length_utf32"}, {"configuration", {{"length_bytes", 6}}}}, "", codecs)); },
      ErrorKind::invalid_metadata, {"data_type.configuration.length_bytes", "multiple of 4"}));
  EXPECT_TRUE(throws_error(
      [&] { v3(array_doc({{"name", "numpy.datetime64"}, {"configuration", {{"unit", "fortnight"}, {"scale_factor", 1}}}}, 0, codecs)); },
      ErrorKind::invalid_metadata, {"data_type.configuration.unit", "fortnight"}));
  EXPECT_TRUE(throws_error([&] { v3(array_doc("numpy.datetime64", 0, codecs)); }, ErrorKind::invalid_metadata,
                           {"needs a configuration"}));
  EXPECT_TRUE(throws_error([&] { v3(array_doc("no_such_type", 0, codecs)); }, ErrorKind::unsupported,
                           {"unknown data type \"no_such_type\""}));
}

TEST(StringAndTimeTypes, V2ObjectArraysTakeTheirTypeFromTheObjectCodec) {
  json z = {{"zarr_format", 2}, {"shape", {4}},        {"chunks", {2}},           {"dtype", "|O"},
            {"fill_value", ""},  {"order", "C"},       {"compressor", {{"id", "zstd"}, {"level", 1}}},
            {"filters", json::array({{{"id", "vlen-utf8"}}})}};
  ArrayMetadata m = parse_zarray(z, json::object(), "s");
  EXPECT_EQ(m.data_type, DataType::string);
  ASSERT_EQ(m.codecs.size(), 2u);
  EXPECT_EQ(m.codecs[0].name, "vlen-utf8");
  EXPECT_EQ(m.codecs[1].name, "zstd");
  EXPECT_EQ(to_zarray(m)["dtype"], "|O");
  EXPECT_EQ(to_zarray(m)["filters"], z["filters"]);

  z["filters"] = json::array({{{"id", "vlen-bytes"}}});
  z["fill_value"] = nullptr;
  EXPECT_EQ(parse_zarray(z, json::object(), "b").data_type, DataType::bytes);

  z["filters"] = json::array({{{"id", "pickle"}}});
  EXPECT_TRUE(throws_error([&] { parse_zarray(z, json::object(), "p"); }, ErrorKind::unsupported,
                           {"'p'", "vlen-utf8 or vlen-bytes"}));
  z["filters"] = json::array({{{"id", "vlen-array"}, {"dtype", "<i4"}}});
  EXPECT_TRUE(throws_error([&] { parse_zarray(z, json::object(), "r"); }, ErrorKind::unsupported, {"vlen-array"}));
  // A vlen codec on a fixed-size type is not an object codec.
  z["dtype"] = "<i4";
  z["fill_value"] = 0;
  z["filters"] = json::array({{{"id", "vlen-utf8"}}});
  EXPECT_TRUE(throws_error([&] { parse_zarray(z, json::object(), "i"); }, ErrorKind::unsupported,
                           {"vlen-utf8", "first filter"}));
}

TEST(StringAndTimeTypes, V2FixedLengthAndTimeDtypesRoundTrip) {
  for (const char* dtype : {"|S7", "<U3", ">U3", "|V5", "<M8[ns]", ">m8[h]", "<M8", "<m8[25ms]"}) {
    SCOPED_TRACE(dtype);
    json z = {{"zarr_format", 2}, {"shape", {4}},   {"chunks", {2}},         {"dtype", dtype},
              {"fill_value", nullptr}, {"order", "C"}, {"compressor", nullptr}, {"filters", nullptr}};
    ArrayMetadata m = parse_zarray(z, json::object(), "a");
    EXPECT_EQ(to_zarray(m)["dtype"], dtype);
    // The bytes codec swaps UTF-32 code units and int64 times of big-endian arrays.
    const CodecSpec& bytes = m.codecs.back();
    EXPECT_EQ(bytes.configuration.value("endian", "none"),
              component_size(m.data_type) == 1 ? "none" : (dtype[0] == '>' ? "big" : "little"));
  }
}

}  // namespace
}  // namespace zarrgpu
