// parse_metadata_document / dump_metadata_document: Python's non-finite number
// tokens, and the limits that keep hostile documents from crashing a reader.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "metadata/metadata_test_support.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu {
namespace {

using testing::throws_error;

const ErrorContext kWhere{"a", "", "", "memory://", "a/zarr.json"};

json parse(std::string_view text) { return parse_metadata_document(text, kWhere); }

std::string nested(std::size_t depth, std::string_view inner = "1") {
  return std::string(depth, '[') + std::string(inner) + std::string(depth, ']');
}

TEST(JsonDocument, ReadsPythonNonFiniteTokens) {
  // What json.dumps({"x": nan, "y": [inf, -inf, "NaN", 1.5]}) writes.
  const json j = parse(R"({"x": NaN, "y": [Infinity, -Infinity, "NaN", 1.5], "z": -1})");
  EXPECT_TRUE(std::isnan(j["x"].get<double>()));
  EXPECT_EQ(j["y"][0].get<double>(), INFINITY);
  EXPECT_EQ(j["y"][1].get<double>(), -INFINITY);
  EXPECT_EQ(j["y"][2], "NaN");  // a string stays a string
  EXPECT_EQ(j["y"][3], 1.5);
  EXPECT_EQ(j["z"], -1);
  EXPECT_TRUE(std::isnan(parse("NaN").get<double>()));
  EXPECT_EQ(parse(" -Infinity\n").get<double>(), -INFINITY);
}

TEST(JsonDocument, TokensInsideStringsStayStrings) {
  const json j = parse(R"({"NaN": "Infinity", "q": "say \"NaN\", -Infinity", "e": "\\", "n": NaN,
                           "k": [null, true, false, 0, NaN, null, "x", Infinity]})");
  EXPECT_EQ(j["NaN"], "Infinity");
  EXPECT_EQ(j["q"], "say \"NaN\", -Infinity");
  EXPECT_EQ(j["e"], "\\");
  EXPECT_TRUE(std::isnan(j["n"].get<double>()));
  const json& k = j["k"];
  EXPECT_TRUE(k[0].is_null());
  EXPECT_EQ(k[1], true);
  EXPECT_EQ(k[2], false);
  EXPECT_EQ(k[3], 0);
  EXPECT_TRUE(std::isnan(k[4].get<double>()));
  EXPECT_TRUE(k[5].is_null());
  EXPECT_EQ(k[6], "x");
  EXPECT_EQ(k[7].get<double>(), INFINITY);
}

TEST(JsonDocument, OnlyPythonsSpellingsAreNumbers) {
  // Python's json.loads refuses these too.
  for (const char* text : {"nan", "inf", "+Infinity", "-NaN", "NaNx", "Infinityy", "[NaN NaN]", "{NaN: 1}"})
    EXPECT_TRUE(throws_error([&] { parse(text); }, ErrorKind::invalid_metadata, {"not valid JSON", "a/zarr.json"}))
        << text;
}

TEST(JsonDocument, ErrorPositionsPointIntoTheOriginalText) {
  // The tokens are replaced in place by as many bytes: column 24 is the 'x'.
  EXPECT_TRUE(throws_error([] { parse(R"([-Infinity, Infinity, x])"); }, ErrorKind::invalid_metadata,
                           {"column 23"}));
}

TEST(JsonDocument, WritesNonFiniteNumbersAsPythonDoes) {
  json doc = {{"x", NAN}, {"y", {INFINITY, -INFINITY, "NaN", 1.5}}};
  EXPECT_EQ(dump_metadata_document(doc, -1), R"({"x":NaN,"y":[Infinity,-Infinity,"NaN",1.5]})");
  const json back = parse(dump_metadata_document(doc));
  EXPECT_TRUE(std::isnan(back["x"].get<double>()));
  EXPECT_EQ(back["y"], (json{INFINITY, -INFINITY, "NaN", 1.5}));
}

TEST(JsonDocument, WritesFiniteDocumentsAsNlohmannDoes) {
  const json doc = parse(R"({"a": [1, 2.5, -3, 1e300, 18446744073709551615, "é\n\"", null, true, {}, []],
                             "b": {"c": {"d": [[]]}}, "": 0.1})");
  for (int indent : {-1, 0, 2, 4}) EXPECT_EQ(dump_metadata_document(doc, indent), doc.dump(indent)) << indent;
}

TEST(JsonDocument, DepthLimit) {
  const std::size_t limit = max_metadata_document_depth;
  EXPECT_EQ(parse(nested(limit)).dump().size(), 2 * limit + 1);
  EXPECT_EQ(dump_metadata_document(parse(nested(limit)), -1), nested(limit));
  EXPECT_TRUE(throws_error([&] { parse(nested(limit + 1)); }, ErrorKind::invalid_metadata,
                           {"more than 512 deep", "document 'a/zarr.json'", "store 'memory://'"}));
  // 100,000 levels (issue 33 crashed here): refused before anything recurses.
  EXPECT_TRUE(throws_error([&] { parse(nested(100'000)); }, ErrorKind::invalid_metadata, {"more than 512 deep"}));
  std::string objects;
  for (int i = 0; i < 100'000; ++i) objects += "{\"a\":";
  EXPECT_TRUE(throws_error([&] { parse(objects); }, ErrorKind::invalid_metadata, {"more than 512 deep"}));
  // Brackets inside strings are text.
  EXPECT_NO_THROW(parse("[\"" + std::string(100'000, '[') + "\"]"));
  // What could not be read back is not written.
  json deep = json::array();
  for (std::size_t i = 0; i < limit; ++i) deep = json::array({std::move(deep)});
  EXPECT_TRUE(throws_error([&] { dump_metadata_document(deep); }, ErrorKind::invalid_metadata, {"more than 512 deep"}));
}

TEST(JsonDocument, SizeLimit) {
  std::string big = "[" + std::string(max_metadata_document_bytes, ' ') + "]";
  EXPECT_TRUE(throws_error([&] { parse(big); }, ErrorKind::invalid_metadata,
                           {std::to_string(big.size()) + " bytes", "a/zarr.json"}));
}

TEST(JsonDocument, StrictUtf8) {
  using namespace std::string_literals;
  EXPECT_EQ(parse("\xEF\xBB\xBF{\"a\": \"\xC3\xA9\"}")["a"], "\xC3\xA9");  // UTF-8 with a BOM
  const std::pair<std::string, std::string> bad[] = {
      {"{\"a\": \"\xFF\"}", "byte 0xFF at offset 7"},
      {"{\"a\": \"\xC0\xAF\"}", "byte 0xC0"},          // overlong '/'
      {"{\"a\": \"\xED\xA0\x80\"}", "byte 0xED"},      // a UTF-16 surrogate
      {"{\"a\": \"\xF4\x90\x80\x80\"}", "byte 0xF4"},  // above U+10FFFF
      {"{\"a\": \"\xE2\x82\"}", "byte 0xE2"},          // truncated
      {"{\"a\": 1}\xE9", "byte 0xE9"},                 // Latin-1 outside a string
      {"\xFF\xFE{\x00}\x00"s, "UTF-16"},
      {"\xFE\xFF\x00{\x00}"s, "UTF-16"},
      {"{\x00\"\x00"s, "UTF-16"},
      {"\xFF\xFE\x00\x00{\x00\x00\x00"s, "UTF-32"},
      {"\x00\x00\x00{"s, "UTF-32"},
  };
  for (const auto& [text, needle] : bad) {
    try {
      parse(text);
      ADD_FAILURE() << "accepted " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_metadata);
      const std::string m = e.what();
      EXPECT_NE(m.find(needle), std::string::npos) << m;
      EXPECT_NE(m.find("document 'a/zarr.json'"), std::string::npos) << m;
      // The message itself is ASCII, whatever the document held.
      for (unsigned char c : m) EXPECT_LT(c, 0x80) << m;
    }
  }
}

TEST(JsonDocument, SyntaxErrorsQuoteNoRawBytes) {
  using namespace std::string_literals;
  for (const std::string text : {"{\"a\": \x01}"s, "{\"a\": \"\x01\"}"s, "{\"a\": \"\xC3\xA9"s, "\x00"s}) {
    try {
      parse(text);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_metadata);
      for (unsigned char c : std::string(e.what())) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << e.what();
    }
  }
}

}  // namespace
}  // namespace zarrgpu
