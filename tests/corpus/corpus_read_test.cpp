// Every array of the corpus reads bit-exactly (SHA-256 of the C-order,
// little-endian bytes), and selections agree with slicing the full read.
#include <gtest/gtest.h>

#include "corpus/corpus.hpp"
#include "engine/reference_slice.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

using testing::CorpusEntry;

class CorpusRead : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(CorpusRead, FullReadMatchesSha256) {
  const auto& e = GetParam();
  auto store = open_store(e.store_path().string());
  const Array a = Array::open(store, e.array);
  EXPECT_EQ(a.shape(), e.shape);
  const std::string dtype = a.dtype() == DataType::bfloat16 ? "bfloat16" : numpy_str(a.dtype());
  EXPECT_EQ(dtype, e.dtype);
  const Bytes all = a.read();
  EXPECT_EQ(testing::sha256_hex(all.span()), e.sha256) << e.name;
  // The same through the span overload, with a single thread.
  Bytes again(all.size());
  a.read(Selection(), again.span(), ReadOptions{.threads = 1});
  EXPECT_EQ(std::memcmp(all.data(), again.data(), all.size()), 0);
}

TEST_P(CorpusRead, SelectionsMatchSlicingTheFullRead) {
  const auto& e = GetParam();
  auto store = open_store(e.store_path().string());
  const Array a = Array::open(store, e.array);
  const Bytes all = a.read();
  const std::size_t es = size_of(a.dtype());
  std::vector<std::string> sels;
  switch (e.shape.size()) {
    case 0: sels = {"", ":"}; break;
    case 1: sels = {"::3", "::-1", "5:-5:7", "-1", "3:4", "10:2:-3", "0:0"}; break;
    case 2: sels = {"::2,::-3", "1:-1,5", "-1,::-1", "3:40:5,-7:", ":,0"}; break;
    default: sels = {"0", "::-2", "1:,::3", "-1,::-1,2:"}; break;
  }
  for (const auto& text : sels) {
    const Selection sel = Selection::parse(text);
    const auto ranges = sel.resolve(e.shape);
    const auto want = testing::reference_slice(all.span(), e.shape, ranges, es);
    const Bytes got = a.read(sel);
    ASSERT_EQ(got.size(), want.size()) << text;
    if (want.empty()) continue;  // memcmp takes no null pointers, even for 0 bytes
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0) << e.name << " [" << text << "]";
  }
}

// The repository carries its corpus (tests/corpus/data): the sweep above never runs empty.
TEST(CorpusEntries, RepositoryCorpusHasEveryExpectedArray) {
  const auto entries = testing::corpus_entries();
  const auto in_repo = std::count_if(entries.begin(), entries.end(),
                                     [](const CorpusEntry& e) { return e.root == testing::corpus_dir(); });
  EXPECT_GE(in_repo, 62) << testing::corpus_dir();
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusRead, ::testing::ValuesIn(testing::corpus_entries()),
                         [](const auto& info) { return testing::test_name(info.param.name); });

TEST(CorpusGroups, ConsolidatedAndPlainGroupsListTheSameArrays) {
  for (const char* name : {"v3_group_consolidated_s11.zarr", "v3_group_plain_s11.zarr", "v2_group_consolidated_s1.zarr"}) {
    auto store = open_store((testing::corpus_dir() / name).string());
    const Group g = Group::open(store);
    const auto tree = g.tree();
    EXPECT_FALSE(tree.empty()) << name;
    for (const auto& [path, node] : tree) {
      if (!std::holds_alternative<ArrayMetadata>(node)) continue;
      // Opening through the group (consolidated or not) agrees with opening directly.
      const Array via_group = g.open_array(path);
      const Array direct = Array::open(store, path);
      EXPECT_EQ(via_group.shape(), direct.shape()) << name << " " << path;
      const Bytes x = via_group.read(), y = direct.read();
      ASSERT_EQ(x.size(), y.size());
      EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size()), 0) << name << " " << path;
    }
    EXPECT_FALSE(g.members().empty()) << name;
  }
  EXPECT_TRUE(Group::open(open_store((testing::corpus_dir() / "v3_group_consolidated_s11.zarr").string())).is_consolidated());
  EXPECT_TRUE(Group::open(open_store((testing::corpus_dir() / "v2_group_consolidated_s1.zarr").string())).is_consolidated());
  EXPECT_FALSE(Group::open(open_store((testing::corpus_dir() / "v3_group_plain_s11.zarr").string())).is_consolidated());
}

TEST(CorpusGroups, MissingNodeIsNotFoundNamingPathAndStore) {
  auto store = open_store((testing::corpus_dir() / "v3_group_plain_s11.zarr").string());
  try {
    Array::open(store, "no/such/array");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found);
    EXPECT_EQ(e.context().array, "no/such/array");
    EXPECT_EQ(e.context().store, store->describe());
  }
}

}  // namespace
}  // namespace zarrgpu
