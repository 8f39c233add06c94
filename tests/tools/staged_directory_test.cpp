#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "parallel_blocks.hpp"
#include "staged_directory.hpp"
#include "zarrgpu/error.hpp"

using namespace zarrgpu;
using namespace zarrgpu::cli;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir(const char* name) {
  auto d = fs::temp_directory_path() / (std::string(name) + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::size_t entries(const fs::path& d) { return static_cast<std::size_t>(std::distance(fs::directory_iterator(d), {})); }
}  // namespace

TEST(StagedDirectory, CommitRenames) {
  auto d = temp_dir("staged_commit");
  std::string dst = (d / "out.zarr").string();
  {
    StagedDirectory s(dst, false);
    std::ofstream(fs::path(s.staging_path()) / "zarr.json") << "{}";
    EXPECT_FALSE(fs::exists(dst));
    s.commit();
  }
  EXPECT_TRUE(fs::exists(fs::path(dst) / "zarr.json"));
  EXPECT_EQ(entries(d), 1u);
  fs::remove_all(d);
}

TEST(StagedDirectory, FailureLeavesNothing) {
  auto d = temp_dir("staged_fail");
  std::string dst = (d / "out.zarr").string();
  {
    StagedDirectory s(dst, false);
    std::ofstream(fs::path(s.staging_path()) / "zarr.json") << "{}";
  }
  EXPECT_EQ(entries(d), 0u);
  fs::remove_all(d);
}

TEST(StagedDirectory, ExistingDestination) {
  auto d = temp_dir("staged_exists");
  std::string dst = (d / "out.zarr").string();
  fs::create_directories(fs::path(dst) / "old");
  try {
    StagedDirectory s(dst, false);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("--overwrite"), std::string::npos);
  }
  {
    StagedDirectory s(dst, true);
    std::ofstream(fs::path(s.staging_path()) / "new") << "x";
    s.commit();
  }
  EXPECT_TRUE(fs::exists(fs::path(dst) / "new"));
  EXPECT_FALSE(fs::exists(fs::path(dst) / "old"));
  EXPECT_EQ(entries(d), 1u);
  fs::remove_all(d);
}

TEST(StagedDirectory, MissingParentIsNotFound) {
  try {
    StagedDirectory s("/nonexistent-parent/x.zarr", false);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found);
  }
}

TEST(ParallelBlocks, RunsEveryItemOnceAndRethrows) {
  std::vector<std::atomic<int>> hits(100);
  for_each_block(100, 4, [&](std::uint64_t i) { hits[i]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_THROW(for_each_block(100, 4,
                              [&](std::uint64_t i) {
                                if (i == 17) throw Error(ErrorKind::corrupt_data, "bad");
                              }),
               Error);
  for_each_block(0, 4, [&](std::uint64_t) { FAIL(); });
}
