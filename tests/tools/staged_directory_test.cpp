#include <gtest/gtest.h>
#include <sys/stat.h>

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

TEST(StagedDirectory, RepairsWhatKilledRunsLeft) {
  auto d = temp_dir("staged_repair");
  const std::string dst = (d / "out.zarr").string();
  // A partial output nobody holds (its run was killed), and one a live run holds.
  fs::create_directories(d / "out.zarr.partial-dead01" / "c");
  std::ofstream(d / "out.zarr.partial-dead01" / "c" / "0") << "x";
  StagedDirectory live(dst, false);
  // The fallback overwrite's old store, moved aside before a kill.
  fs::create_directories(d / "out.zarr.old-abc123");
  std::ofstream(d / "out.zarr.old-abc123" / "zarr.json") << "{}";
  const auto notes = repair_leftovers(dst);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("restored"), std::string::npos);
  EXPECT_NE(notes[1].find("out.zarr.partial-dead01"), std::string::npos);
  EXPECT_TRUE(fs::exists(fs::path(dst) / "zarr.json"));
  EXPECT_FALSE(fs::exists(d / "out.zarr.partial-dead01"));
  EXPECT_TRUE(fs::exists(live.staging_path()));  // locked by its (live) run
  // An old store beside a DST: the overwrite had finished; it goes.
  fs::create_directories(d / "out.zarr.old-zzz999");
  EXPECT_EQ(repair_leftovers(dst).size(), 1u);
  EXPECT_FALSE(fs::exists(d / "out.zarr.old-zzz999"));
  fs::remove_all(d);
}

TEST(StagedDirectory, OverwriteSwapsAndFollowsTheUmask) {
  auto d = temp_dir("staged_swap");
  const std::string dst = (d / "out.zarr").string();
  fs::create_directories(fs::path(dst));
  std::ofstream(fs::path(dst) / "old") << "x";
  const mode_t old_mask = ::umask(022);
  {
    StagedDirectory s(dst, true);
    std::ofstream(fs::path(s.staging_path()) / "new") << "y";
    s.commit();
  }
  ::umask(old_mask);
  EXPECT_TRUE(fs::exists(fs::path(dst) / "new"));
  EXPECT_FALSE(fs::exists(fs::path(dst) / "old"));
  EXPECT_EQ(entries(d), 1u);
  EXPECT_EQ(fs::status(dst).permissions() & fs::perms::all,
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                fs::perms::others_exec);
  fs::remove_all(d);
}
