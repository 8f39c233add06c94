#include <gtest/gtest.h>

#include "zarrgpu/error.hpp"
#include "zarrgpu/selection.hpp"

namespace zarrgpu {
namespace {

DimRange one(std::string_view text, std::uint64_t n) {
  const std::uint64_t shape[] = {n};
  return Selection::parse(text).resolve(shape).at(0);
}

void expect_range(const DimRange& r, std::int64_t start, std::int64_t step, std::uint64_t count) {
  EXPECT_EQ(r.count, count);
  if (count > 0) EXPECT_EQ(r.start, start);
  if (count > 1) EXPECT_EQ(r.step, step);
}

TEST(Selection, ParsesSlicesAndIntegers) {
  const auto s = Selection::parse(" 0:10 , : ,5,::-2, -1");
  ASSERT_EQ(s.dims().size(), 5u);
  EXPECT_EQ(s.dims()[0].start, 0);
  EXPECT_EQ(s.dims()[0].stop, 10);
  EXPECT_FALSE(s.dims()[1].start || s.dims()[1].stop || s.dims()[1].step);
  EXPECT_TRUE(s.dims()[2].is_index);
  EXPECT_EQ(s.dims()[3].step, -2);
  EXPECT_EQ(s.dims()[4].start, -1);
  EXPECT_EQ(s.to_string(), "0:10,:,5,::-2,-1");
  EXPECT_TRUE(Selection::parse("").dims().empty());
  EXPECT_TRUE(Selection::parse(":").dims().empty());
  EXPECT_EQ(Selection::parse(s.to_string()).to_string(), s.to_string());
}

TEST(Selection, ListsOfPositionsParseResolveAndPrint) {
  const auto s = Selection::parse("[3 -1  0],1:2,[]");
  ASSERT_EQ(s.dims().size(), 3u);
  EXPECT_TRUE(s.dims()[0].is_list);
  EXPECT_EQ(s.dims()[0].list, (std::vector<std::int64_t>{3, -1, 0}));
  EXPECT_TRUE(s.dims()[2].is_list);
  EXPECT_TRUE(s.dims()[2].list.empty());
  EXPECT_EQ(s.to_string(), "[3 -1 0],1:2,[]");
  const std::uint64_t shape[] = {5, 4, 2};
  const auto r = s.resolve(shape);
  EXPECT_TRUE(r[0].is_list && r[0].keeps_dim);
  EXPECT_EQ(r[0].points, (std::vector<std::uint64_t>{3, 4, 0}));
  EXPECT_EQ(r[0].count, 3u);
  EXPECT_EQ(r[0].position(1), 4u);
  EXPECT_EQ(r[2].count, 0u);
  EXPECT_EQ(Selection::result_shape(r), (std::vector<std::uint64_t>{3, 1, 0}));
  for (auto bad : {"[5]", "[-6]"}) EXPECT_THROW(Selection::parse(bad).resolve(shape), Error) << bad;
  for (auto bad : {"[1 2", "[1,2]", "[x]"}) EXPECT_THROW(Selection::parse(bad), Error) << bad;
}

TEST(Selection, RejectsMalformedText) {
  for (auto t : {"a", "1:2:3:4", "1,,2", "...", "1.5", "--1", "1:x"}) {
    try {
      Selection::parse(t);
      FAIL() << t;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_argument) << t;
    }
  }
}

TEST(Selection, ResolvesWithNumPySemantics) {
  // Each case checked against numpy: len(range(10)[sel]) and its first element and step.
  expect_range(one(":", 10), 0, 1, 10);
  expect_range(one("2:8:3", 10), 2, 3, 2);
  expect_range(one("-3:", 10), 7, 1, 3);
  expect_range(one("-100:100", 10), 0, 1, 10);
  expect_range(one("::-1", 10), 9, -1, 10);
  expect_range(one("8:2:-2", 10), 8, -2, 3);
  expect_range(one("100:-100:-3", 10), 9, -3, 4);
  expect_range(one("5:5", 10), 0, 1, 0);
  expect_range(one("2:5:-1", 10), 0, 1, 0);
  expect_range(one("-1:-11:-1", 10), 9, -1, 10);
  expect_range(one("::-4", 0), 0, 1, 0);
  expect_range(one("::1000", 10), 0, 1, 1);
  const DimRange r = one("-1", 10);
  EXPECT_EQ(r.start, 9);
  EXPECT_EQ(r.count, 1u);
  EXPECT_FALSE(r.keeps_dim);
}

TEST(Selection, ErrorsNameTheDimension) {
  const std::uint64_t shape[] = {4, 5};
  for (auto t : {"0,5", "0,-6", "::0", "0,0,0"}) {
    try {
      Selection::parse(t).resolve(shape);
      FAIL() << t;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_argument) << t;
      if (std::string_view(t) == "0,5") EXPECT_NE(std::string(e.what()).find("dimension 1"), std::string::npos);
    }
  }
}

TEST(Selection, ZeroDimensionalAndShapes) {
  EXPECT_TRUE(Selection().resolve(std::span<const std::uint64_t>()).empty());
  EXPECT_THROW(Selection::parse("0").resolve(std::span<const std::uint64_t>()), Error);
  const std::uint64_t shape[] = {4, 5, 6};
  const auto r = Selection::parse("1,::2").resolve(shape);
  EXPECT_EQ(Selection::result_shape(r), (std::vector<std::uint64_t>{3, 6}));
}

}  // namespace
}  // namespace zarrgpu
