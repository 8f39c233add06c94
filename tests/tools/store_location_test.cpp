#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store_location.hpp"

using namespace zarrgpu::cli;
namespace fs = std::filesystem;

namespace {
struct TempTree {
  fs::path root;
  TempTree() {
    root = fs::temp_directory_path() / ("store_location_" + std::to_string(::getpid()));
    fs::remove_all(root);
    touch("data.zarr/zarr.json");
    touch("data.zarr/air/zarr.json");
    touch("data.zarr/sub/deep/zarr.json");  // sub has no zarr.json (an implicit group)
    touch("v2.zarr/.zgroup");
    touch("v2.zarr/temp/.zarray");
  }
  ~TempTree() { fs::remove_all(root); }
  void touch(const std::string& rel) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << "{}";
  }
  std::string p(const std::string& rel) const { return (root / rel).string(); }
};
}  // namespace

TEST(StoreLocation, NormalizeNodePath) {
  EXPECT_EQ(normalize_node_path("/a//b/"), "a/b");
  EXPECT_EQ(normalize_node_path(""), "");
  EXPECT_EQ(normalize_node_path("./a"), "a");
}

TEST(StoreLocation, WalksUpToTheStoreRoot) {
  TempTree t;
  auto a = locate_store(t.p("data.zarr/air"), std::nullopt);
  EXPECT_EQ(a.root, t.p("data.zarr"));
  EXPECT_EQ(a.path, "air");
  auto r = locate_store(t.p("data.zarr"), std::nullopt);
  EXPECT_EQ(r.root, t.p("data.zarr"));
  EXPECT_EQ(r.path, "");
  auto v2 = locate_store(t.p("v2.zarr/temp/"), std::nullopt);
  EXPECT_EQ(v2.root, t.p("v2.zarr"));
  EXPECT_EQ(v2.path, "temp");
}

TEST(StoreLocation, PathsOnlyInConsolidatedMetadata) {
  TempTree t;
  // "data.zarr/ghost" does not exist as a directory: the root is still found.
  auto g = locate_store(t.p("data.zarr/ghost/x"), std::nullopt);
  EXPECT_EQ(g.root, t.p("data.zarr"));
  EXPECT_EQ(g.path, "ghost/x");
}

TEST(StoreLocation, ImplicitGroupBreaksTheRun) {
  TempTree t;
  auto d = locate_store(t.p("data.zarr/sub/deep"), std::nullopt);
  EXPECT_EQ(d.root, t.p("data.zarr/sub/deep"));
  EXPECT_EQ(d.path, "");
}

TEST(StoreLocation, ExplicitPathAndMissingStores) {
  TempTree t;
  auto e = locate_store(t.p("data.zarr"), std::string("/air/"));
  EXPECT_EQ(e.root, t.p("data.zarr"));
  EXPECT_EQ(e.path, "air");
  auto m = locate_store(t.p("nothing.zarr"), std::nullopt);
  EXPECT_EQ(m.root, t.p("nothing.zarr"));
  EXPECT_EQ(m.path, "");
  EXPECT_EQ(locate_store("file://" + t.p("data.zarr/air"), std::nullopt).path, "air");
}
