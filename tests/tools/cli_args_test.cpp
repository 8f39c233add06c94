#include <gtest/gtest.h>

#include "cli_args.hpp"

using namespace zarrgpu::cli;

namespace {
const std::vector<OptionSpec> kSpecs = {
    {"out", true, "FILE", ""}, {"json", false, "", ""}, {"time", true, "N", ""}, {"help", false, "", ""}};
}

TEST(CliArgs, ValuesFlagsAndPositionals) {
  auto a = Args::parse({"store.zarr", "--out", "x.npy", "--json", "--time=5", "extra"}, kSpecs);
  EXPECT_EQ(a.positionals(), (std::vector<std::string>{"store.zarr", "extra"}));
  EXPECT_EQ(a.value("out"), "x.npy");
  EXPECT_TRUE(a.flag("json"));
  EXPECT_FALSE(a.flag("help"));
  EXPECT_EQ(a.integer("time"), 5);
  EXPECT_EQ(a.value("missing"), std::nullopt);
  EXPECT_EQ(a.value_or("missing", "d"), "d");
}

TEST(CliArgs, DashDashEndsOptionsAndDashHIsHelp) {
  auto a = Args::parse({"-h", "--", "--out"}, kSpecs);
  EXPECT_TRUE(a.flag("help"));
  EXPECT_EQ(a.positionals(), std::vector<std::string>{"--out"});
}

TEST(CliArgs, NegativeNumbersArePositional) {
  auto a = Args::parse({"-5"}, kSpecs);
  EXPECT_EQ(a.positionals(), std::vector<std::string>{"-5"});
}

TEST(CliArgs, MistakesAreUsageErrors) {
  EXPECT_THROW(Args::parse({"--nope"}, kSpecs), UsageError);
  EXPECT_THROW(Args::parse({"--out"}, kSpecs), UsageError);
  EXPECT_THROW(Args::parse({"--json=1"}, kSpecs), UsageError);
  EXPECT_THROW(Args::parse({"--out", "a", "--out", "b"}, kSpecs), UsageError);
  auto a = Args::parse({"--time", "5x"}, kSpecs);
  EXPECT_THROW(a.integer("time"), UsageError);
}

TEST(CliArgs, ParseInteger) {
  EXPECT_EQ(parse_integer("42"), 42);
  EXPECT_EQ(parse_integer("-3"), -3);
  EXPECT_EQ(parse_integer("+7"), 7);
  EXPECT_EQ(parse_integer(""), std::nullopt);
  EXPECT_EQ(parse_integer("1.5"), std::nullopt);
  EXPECT_EQ(parse_integer("99999999999999999999"), std::nullopt);
}

TEST(CliArgs, FormatOptionsAligns) {
  std::string s = format_options(kSpecs);
  EXPECT_NE(s.find("  --out FILE"), std::string::npos);
  EXPECT_NE(s.find("  --json"), std::string::npos);
}
