#include <gtest/gtest.h>

#include <cstdio>

#include "progress.hpp"

using namespace zarrgpu::cli;

TEST(Progress, Format) {
  std::string s = format_progress(512ull << 20, 1024ull << 20, 2.0, 10);
  EXPECT_EQ(s, "[#####.....]  50%  512 MiB / 1.00 GiB  256 MiB/s  ETA 0:02");
  EXPECT_NE(format_progress(0, 100, 0, 4).find("ETA --:--"), std::string::npos);
  EXPECT_NE(format_progress(5, 0, 1, 4).find("100%"), std::string::npos);
}

TEST(Progress, LinesModeWritesAFinalLine) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p("convert", 100, Progress::Mode::lines, f, std::chrono::hours(1));
    p.add(40);
    p.add(60);
    EXPECT_EQ(p.done(), 100u);
  }
  std::rewind(f);
  char buf[256] = {};
  ASSERT_NE(std::fgets(buf, sizeof buf, f), nullptr);
  EXPECT_EQ(std::string(buf).rfind("convert [", 0), 0u);
  EXPECT_NE(std::string(buf).find("100%"), std::string::npos);
  std::fclose(f);
}

TEST(Progress, OffModeWritesNothing) {
  std::FILE* f = std::tmpfile();
  { Progress p("x", 10, Progress::Mode::off, f); p.add(10); }
  EXPECT_EQ(std::ftell(f), 0);
  std::fclose(f);
  EXPECT_EQ(Progress::mode_for(stderr, true), Progress::Mode::off);
}
