// ReadReport of host reads: chunks, missing chunks, bytes and codecs, through
// ReadOptions::report and last_read_report().
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "metadata/metadata.hpp"
#include "zarrgpu/array.hpp"
#include "zarrgpu/read_report.hpp"

namespace zarrgpu {
namespace {

std::vector<std::string> codec_names(const ReadReport& r) {
  std::vector<std::string> out;
  for (const auto& c : r.codecs) out.push_back(c.codec);
  return out;
}

// An 8 x 8 int32 array whose rows 0-3 are written (chunks or shards of 4 x 4:
// the lower half of the grid is missing).
Array half_written(const std::shared_ptr<Store>& store, std::vector<CodecSpec> codecs) {
  ArrayMetadata m;
  m.shape = {8, 8};
  m.chunk_shape = {4, 4};
  m.data_type = DataType::int32;
  m.codecs = std::move(codecs);
  Array a = Array::create(store, "a", m);
  std::vector<std::int32_t> v(32);
  std::iota(v.begin(), v.end(), 1);
  a.write(Selection::parse("0:4,:"), std::as_bytes(std::span(v)));
  return a;
}

std::uint64_t stored_size(Store& store, const std::string& key) { return store.size(key).value_or(0); }

TEST(ReadReport, HostReadCountsChunksBytesAndCodecs) {
  auto store = make_memory_store();
  const Array a = half_written(store, {{"bytes", {{"endian", "little"}}}, {"zstd", {{"level", 1}, {"checksum", false}}}});
  ReadReport r;
  ReadOptions options;
  options.report = &r;
  const Bytes out = a.read(Selection(), options);
  EXPECT_EQ(r.device, Device::cpu());
  EXPECT_EQ(r.io_path, "store");
  EXPECT_EQ(r.store, "memory");
  EXPECT_EQ(r.requests, 0u);
  EXPECT_EQ(r.bytes_fetched, 0u);
  EXPECT_EQ(r.chunks, 4u);
  EXPECT_EQ(r.missing_chunks, 2u);
  EXPECT_EQ(r.bytes_read, stored_size(*store, "a/c/0/0") + stored_size(*store, "a/c/0/1"));
  EXPECT_EQ(r.bytes_decoded, 2u * 16 * 4);
  EXPECT_EQ(r.bytes_out, out.size());
  EXPECT_EQ(codec_names(r), (std::vector<std::string>{"bytes", "zstd"}));
  for (const auto& c : r.codecs) {
    EXPECT_EQ(c.cpu_chunks, 2u) << c.codec;
    EXPECT_EQ(c.gpu_chunks, 0u) << c.codec;
  }
  EXPECT_GT(r.seconds, 0.0);

  const ReadReport last = last_read_report();
  EXPECT_EQ(last.chunks, r.chunks);
  EXPECT_EQ(last.bytes_read, r.bytes_read);
  EXPECT_EQ(codec_names(last), codec_names(r));

  // Another thread has made no read.
  ReadReport other;
  std::thread([&] { other = last_read_report(); }).join();
  EXPECT_EQ(other.chunks, 0u);
  EXPECT_EQ(other.io_path, "");
}

TEST(ReadReport, ChunksReadStraightIntoTheOutputAreCounted) {
  auto store = make_memory_store();
  const Array a = half_written(store, {{"bytes", {{"endian", "little"}}}});
  const Bytes out = a.read(Selection::parse("0:4,:"));  // two whole chunks, no decoding
  const ReadReport r = last_read_report();
  EXPECT_EQ(r.chunks, 2u);
  EXPECT_EQ(r.missing_chunks, 0u);
  EXPECT_EQ(r.bytes_read, 2u * 16 * 4);
  EXPECT_EQ(r.bytes_out, 2u * 16 * 4);
  EXPECT_EQ(codec_names(r), (std::vector<std::string>{"bytes"}));
}

TEST(ReadReport, ShardedReadsCountInnerChunksAndTheIndex) {
  auto store = make_memory_store();
  const json inner = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  const json index = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, {{"name", "crc32c"}}});
  const Array a = half_written(
      store, {{"sharding_indexed", {{"chunk_shape", {2, 2}}, {"codecs", inner}, {"index_codecs", index}}}});
  a.read(Selection::parse("0:2,0:2"));  // one inner chunk of shard c/0/0
  ReadReport r = last_read_report();
  EXPECT_EQ(codec_names(r), (std::vector<std::string>{"sharding_indexed", "bytes"}));
  EXPECT_EQ(r.chunks, 1u);
  EXPECT_EQ(r.missing_chunks, 0u);
  const std::uint64_t index_bytes = 4 * 2 * 8 + 4;  // 2 x 2 inner chunks x (offset, nbytes), crc32c
  EXPECT_EQ(r.bytes_read, index_bytes + 2 * 2 * 4);

  a.read(Selection::parse("4:8,:"));  // two missing shards: 8 inner chunks
  r = last_read_report();
  EXPECT_EQ(r.chunks, 8u);
  EXPECT_EQ(r.missing_chunks, 8u);
  EXPECT_EQ(r.bytes_read, 0u);
  EXPECT_EQ(r.bytes_decoded, 0u);
}

}  // namespace
}  // namespace zarrgpu
