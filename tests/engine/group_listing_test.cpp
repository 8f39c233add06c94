// Opening a member costs its own metadata reads, never a walk of the store's
// keys (issue 34, item 5): a store that counts recursive listings.
#include <gtest/gtest.h>

#include <atomic>

#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu {
namespace {

// A memory store whose recursive list() is counted; list_dir answers one level.
class CountingStore final : public Store {
 public:
  std::shared_ptr<Store> inner = make_memory_store();
  std::atomic<int> recursive_lists{0};

  std::vector<ReadResult> read(std::span<const ReadInto> r) override { return inner->read(r); }
  void write(std::string_view k, std::span<const std::byte> v) override { inner->write(k, v); }
  void erase(std::string_view k) override { inner->erase(k); }
  bool exists(std::string_view k) override { return inner->exists(k); }
  std::vector<std::string> list(std::string_view p) override {
    ++recursive_lists;
    return inner->list(p);
  }
  std::vector<std::string> list_dir(std::string_view p) override { return inner->list_dir(p); }
  std::optional<std::uint64_t> size(std::string_view k) override { return inner->size(k); }
  std::string describe() const override { return "counting://"; }
};

TEST(GroupListing, OpeningMembersNeverWalksTheChunks) {
  auto store = std::make_shared<CountingStore>();
  Group::create(store, "");
  Group::create(store, "sub");
  ArrayMetadata m;
  m.shape = {64};
  m.chunk_shape = {1};
  m.data_type = DataType::uint8;
  m.codecs = {{"bytes", json::object()}};
  Array a = Array::create(store, "sub/a", m);
  std::vector<std::uint8_t> ones(64, 1);
  a.write({}, std::as_bytes(std::span(ones)));
  store->recursive_lists = 0;

  Group g = Group::open(store);
  EXPECT_EQ(g.members(), std::vector<std::string>{"sub"});
  EXPECT_EQ(g.open_group("sub").members(), std::vector<std::string>{"a"});
  EXPECT_EQ(g.open_array("sub/a").shape(), std::vector<std::uint64_t>{64});
  const auto tree = g.tree();
  EXPECT_EQ(tree.size(), 2u);
  EXPECT_EQ(Array::open(store, "sub/a").shape(), std::vector<std::uint64_t>{64});
  EXPECT_EQ(store->recursive_lists.load(), 0);
}

TEST(GroupListing, ListDirIsOneLevel) {
  auto store = make_memory_store();
  const std::byte b{1};
  for (const char* k : {"zarr.json", "a/zarr.json", "a/c/0", "a/c/1", "b/x/zarr.json"}) store->write(k, std::span(&b, 1));
  EXPECT_EQ(store->list_dir(""), (std::vector<std::string>{"a/", "b/", "zarr.json"}));
  EXPECT_EQ(store->list_dir("a"), (std::vector<std::string>{"c/", "zarr.json"}));
  EXPECT_EQ(store->list_dir("a/c/"), (std::vector<std::string>{"0", "1"}));
}

}  // namespace
}  // namespace zarrgpu
