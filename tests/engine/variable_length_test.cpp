// The engine's variable-length path (src/engine/variable_length.cpp): writes
// and reads of string arrays through the public API into a MemoryStore, with
// missing chunks, edge chunks, partial rewrites, compression, and the refusal
// of fixed-size and device access.
#include <gtest/gtest.h>

#include "metadata/metadata.hpp"
#include "zarrgpu/array.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

ArrayMetadata string_array(std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunks, std::string fill) {
  ArrayMetadata m;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.data_type = DataType::string;
  m.fill_value = parse_fill_value(fill, DataType::string, 3);
  m.codecs = {{"vlen-utf8", json::object()}, {"zstd", {{"level", 1}, {"checksum", false}}}};
  return m;
}

TEST(VariableLength, WritesAndReadsSelectionsWithTheFillValue) {
  auto store = make_memory_store();
  Array a = Array::create(store, "s", string_array({5, 3}, {2, 2}, "-"));
  // Row 1 and column 2 of rows 0..3; chunks of rows 4 stay missing.
  std::vector<std::string> row{"a", "", "\xe6\x97\xa5"};
  a.write_variable_length(Selection{{DimSelection::index(1), DimSelection::all()}}, row);
  std::vector<std::string> col{"w", "x", "y", "z"};
  a.write_variable_length(Selection{{DimSelection::slice(0, 4), DimSelection::index(2)}}, col);
  const auto all = a.read_variable_length();
  const std::vector<std::string> want{"-", "-", "w",  "a", "", "x",  "-", "-", "y",  "-", "-", "z",  "-", "-", "-"};
  EXPECT_EQ(all, want);
  EXPECT_FALSE(store->exists("s/c/2/0"));  // rows 4.. never written: missing, read as "-"
  const auto tail = a.read_variable_length(Selection{{DimSelection::slice(4, 0, -2), DimSelection::index(1)}});
  EXPECT_EQ(tail, (std::vector<std::string>{"-", "-"}));
  // Writing the fill value back everywhere erases the chunks.
  a.write_variable_length({}, std::vector<std::string>(15, "-"));
  EXPECT_TRUE(store->list("s/c").empty());
}

TEST(VariableLength, FixedSizeAndDeviceAccessAreRefused) {
  auto store = make_memory_store();
  Array a = Array::create(store, "s", string_array({2}, {2}, ""));
  std::vector<std::byte> buf(64);
  try {
    a.read({}, std::span(buf));
    FAIL() << "read into bytes";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("read_variable_length"), std::string::npos) << e.what();
  }
  try {
    a.read({}, buf.data(), buf.size(), Device::cuda(0));
    FAIL() << "device read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_NE(std::string(e.what()).find("cannot be read to a device"), std::string::npos) << e.what();
  }
  EXPECT_THROW(a.write_variable_length({}, std::vector<std::string>(3, "x")), Error);  // 3 values for 2 elements
}

TEST(VariableLength, PositionListsReadInTheirOrderAndWritesRefuseThem) {
  auto store = make_memory_store();
  Array a = Array::create(store, "s", string_array({6}, {2}, "-"));
  a.write_variable_length({}, std::vector<std::string>{"a", "b", "c", "d", "e", "f"});
  // Unsorted, repeated, across chunks: each run of the list reads its chunk again.
  const auto got = a.read_variable_length(Selection{{DimSelection::positions({5, 0, 0, 3, 2, -1})}});
  EXPECT_EQ(got, (std::vector<std::string>{"f", "a", "a", "d", "c", "f"}));
  try {
    a.write_variable_length(Selection{{DimSelection::positions({1, 0})}}, std::vector<std::string>{"x", "y"});
    FAIL() << "wrote a list";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_NE(std::string(e.what()).find("not lists of positions"), std::string::npos) << e.what();
  }
  EXPECT_EQ(a.read_variable_length(), (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
}

TEST(VariableLength, ShardedStringArraysAreAClearError) {
  auto m = string_array({4}, {4}, "");
  json config = {{"chunk_shape", {2}},
                 {"codecs", json::array({{{"name", "vlen-utf8"}}})},
                 {"index_codecs", json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}})}};
  m.codecs = {CodecSpec{"sharding_indexed", config}};
  try {
    Array(make_memory_store(), "s", m);
    FAIL() << "opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_NE(std::string(e.what()).find("sharded variable-length"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace zarrgpu
