#include <gtest/gtest.h>

#include <algorithm>

#include "codec/bytes_to_bytes/zstd/zstd_device_decoder.hpp"
#include "engine/device_read/batch.hpp"
#include "gpu/place_box.hpp"

namespace zarrgpu::engine::device_read {
namespace {

using Mode = DeviceChain::Mode;

ReadItem item(std::string key, std::uint64_t offset, std::uint64_t length, bool missing = false) {
  ReadItem it;
  it.key = it.name = std::move(key);
  it.offset = offset;
  it.length = length;
  it.missing = missing;
  return it;
}

DeviceChain chain(Mode mode, bool zstd, std::size_t decoded) {
  DeviceChain c;
  c.mode = mode;
  c.decoder = zstd ? &codec::zstd_device_decoder() : nullptr;
  c.decoded_bytes = decoded;
  return c;
}

// No two regions of a layout overlap, and all lie inside its totals.
void expect_disjoint(const BatchLayout& L, const std::vector<ReadItem>& items, const DeviceChain& c) {
  struct R { std::uint64_t a, b; };
  std::vector<R> pinned, device;
  pinned.push_back({0, L.descriptors});
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& p = L.items[i];
    if (items[i].missing) {
      EXPECT_EQ(p.decoded, ItemPlacement::none);
      continue;
    }
    if (p.cpu_out != ItemPlacement::none) pinned.push_back({p.cpu_out, p.cpu_out + c.decoded_bytes});
    if (p.decoder_out != ItemPlacement::none) device.push_back({p.decoder_out, p.decoder_out + c.decoded_bytes});
    EXPECT_NE(p.decoded, ItemPlacement::none);
  }
  for (const auto& g : L.groups) {
    if (g.pinned != ItemPlacement::none) pinned.push_back({g.pinned, g.pinned + g.length});
    if (g.device != ItemPlacement::none) device.push_back({g.device, g.device + g.length});
  }
  for (auto* v : {&pinned, &device}) {
    std::sort(v->begin(), v->end(), [](R x, R y) { return x.a < y.a; });
    for (std::size_t i = 1; i < v->size(); ++i) EXPECT_LE((*v)[i - 1].b, (*v)[i].a);
  }
  for (const R& r : pinned) EXPECT_LE(r.b, L.pinned_bytes);
  for (const R& r : device) EXPECT_LE(r.b, L.device_bytes);
}

TEST(Batch, GpuItemsCopyTheirStoredBytesAndDecodeIntoScratch) {
  const auto c = chain(Mode::gpu, true, 4096);
  std::vector<ReadItem> items{item("c/0", 0, 1000), item("c/1", 0, 0, true), item("c/2", 0, 3000)};
  const BatchLayout L = lay_out(items, c, /*gds=*/false);
  EXPECT_EQ(L.decoder_items, 2u);
  EXPECT_EQ(L.groups.size(), 2u);
  EXPECT_EQ(L.items[0].device_in, L.items[0].pinned_in);  // the copy mirrors the pinned prefix
  EXPECT_LE(L.items[2].pinned_in + 3000, L.copy_bytes);
  EXPECT_GE(L.items[0].decoder_out, L.scratch_offset);
  EXPECT_EQ(L.bytes_read, 4000u);
  for (const auto& p : L.items) if (p.decoded != ItemPlacement::none) EXPECT_EQ(p.decoded % kAlign, 0u);
  expect_disjoint(L, items, c);
}

TEST(Batch, GdsReadsLandOutsideTheCopiedPrefix) {
  const auto c = chain(Mode::gpu, false, 512);
  std::vector<ReadItem> items{item("a", 0, 512), item("b", 0, 512)};
  const BatchLayout L = lay_out(items, c, /*gds=*/true);
  for (const auto& g : L.groups) {
    EXPECT_EQ(g.pinned, ItemPlacement::none);
    EXPECT_GE(g.device, L.copy_bytes);
  }
  EXPECT_EQ(L.items[0].decoded, L.items[0].device_in);
  expect_disjoint(L, items, c);
}

TEST(Batch, CpuNeighboursInOneShardCoalesce) {
  const auto c = chain(Mode::cpu_bytes, false, 8192);
  std::vector<ReadItem> items{item("s", 100, 50), item("s", 150, 70), item("s", 300, 10),
                              item("s", 10'000'000, 10), item("t", 310, 5)};
  const BatchLayout L = lay_out(items, c, false);
  ASSERT_EQ(L.groups.size(), 3u);  // [0..2] (gap of 80 read through), [3] too far, [4] another key
  EXPECT_EQ(L.groups[0].offset, 100u);
  EXPECT_EQ(L.groups[0].length, 210u);
  EXPECT_EQ(L.items[1].pinned_in, L.items[0].pinned_in + 50);
  EXPECT_EQ(L.items[2].pinned_in, L.items[0].pinned_in + 200);
  EXPECT_GE(L.groups[0].pinned, L.copy_bytes);  // stored bytes stay on the host
  EXPECT_LT(L.items[0].cpu_out, L.copy_bytes);  // decoded bytes travel
  EXPECT_EQ(L.bytes_read, 210u + 10 + 5);
  expect_disjoint(L, items, c);
}

TEST(Batch, TakeBatchRespectsLimitsButTakesOneItem) {
  const auto c = chain(Mode::gpu, true, 1 << 20);
  std::deque<ReadItem> pending;
  for (int i = 0; i < 10; ++i) pending.push_back(item("c/" + std::to_string(i), 0, 100'000));
  BatchLimits limits{1 << 20, 3u << 20, false};
  auto b = take_batch(pending, c, limits);
  EXPECT_EQ(b.size(), 2u);  // device scratch: 3 MiB holds two 1 MiB outputs plus slack, not three
  EXPECT_EQ(pending.size(), 8u);
  BatchLimits tiny{16, 16, false};
  EXPECT_EQ(take_batch(pending, c, tiny).size(), 1u);
  // Missing chunks cost descriptors only.
  std::deque<ReadItem> holes;
  for (int i = 0; i < 100; ++i) holes.push_back(item("h", 0, 0, true));
  EXPECT_EQ(take_batch(holes, c, limits).size(), 100u);
}

TEST(Batch, DescriptorRegionHoldsEveryAlignedArray) {
  // Seven arrays, each starting 16-byte aligned (pipeline.cpp), for any count.
  const auto c = chain(Mode::gpu, true, 64);
  for (std::size_t n = 1; n <= 300; ++n) {
    std::vector<ReadItem> items(n, item("k", 0, 10));
    const BatchLayout L = lay_out(items, c, false);
    std::uint64_t need = 0;
    for (std::uint64_t bytes : {n * sizeof(gpu::PlaceBox), n * 8, n * 8, n * 8, n * 8, n * sizeof(codec::DeviceBytesItem), n * sizeof(codec::DeviceArrayItem)})
      need += (bytes + 15) / 16 * 16;
    EXPECT_GE(L.descriptors, need) << n;
  }
}

}  // namespace
}  // namespace zarrgpu::engine::device_read
