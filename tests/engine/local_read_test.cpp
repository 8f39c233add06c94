// Reads through a LocalStore, where the engine reads chunks into reused
// per-thread buffers, or (uncompressed chunks) straight into the output:
// whole and partial selections, missing chunks, and stored chunks of the
// wrong size, for plain, zstd and sharded arrays.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "codec_chains.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

namespace fs = std::filesystem;

std::vector<CodecSpec> chain(const std::string& kind) { return testing::codec_chain(kind, {2, 3, 4}); }

class LocalRead : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("zarrgpu_local_read_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(std::hash<std::string>{}(GetParam())));
    fs::remove_all(dir_);
    store_ = open_local_store(dir_.string(), true);
    ArrayMetadata m;
    m.shape = {7, 6, 9};
    m.chunk_shape = {4, 6, 4};  // edge chunks along dims 0 and 2; shards of 2x2x1 inner chunks
    m.data_type = DataType::float32;
    m.fill_value = FillValue::of(-1.0f);
    m.codecs = chain(GetParam());
    Array a = Array::create(store_, "v", m);
    values_.resize(7 * 6 * 9);
    std::iota(values_.begin(), values_.end(), 1.0f);
    a.write({}, std::as_bytes(std::span(values_)));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<float> read(const std::string& sel, std::size_t n, unsigned threads = 0) {
    std::vector<float> out(n);
    Array::open(store_, "v").read(Selection::parse(sel), std::as_writable_bytes(std::span(out)),
                                 ReadOptions{.threads = threads});
    return out;
  }

  fs::path dir_;
  std::shared_ptr<Store> store_;
  std::vector<float> values_;
};

TEST_P(LocalRead, WholeAndPartialSelectionsMatch) {
  for (unsigned threads : {1u, 2u, 0u}) {
    EXPECT_EQ(read(":,:,:", values_.size(), threads), values_);
    // A partial selection: every chunk placed through a strided copy.
    const auto part = read("1:6,2,::-2", 5 * 5, threads);
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t k = 0; k < 5; ++k)
        EXPECT_EQ(part[i * 5 + k], values_[((1 + i) * 6 + 2) * 9 + (8 - 2 * k)]) << i << "," << k;
  }
}

TEST_P(LocalRead, MissingChunksReadAsTheFillValue) {
  fs::remove_all(dir_ / "v/c/1");  // the second row of chunks (or shards)
  const auto got = read(":,:,:", values_.size());
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const bool gone = i / (6 * 9) >= 4;
    EXPECT_EQ(got[i], gone ? -1.0f : values_[i]) << i;
  }
}

TEST_P(LocalRead, AStoredChunkTooLongIsCorruptNamingTheChunk) {
  if (GetParam().starts_with("shard")) GTEST_SKIP() << "a longer shard has a misplaced index";
  {
    std::ofstream f(dir_ / "v/c/0/0/0", std::ios::binary | std::ios::app);
    f << "trailing junk";
  }
  try {
    read(":,:,:", values_.size());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::corrupt_data) << e.what();
    EXPECT_EQ(e.context().chunk_key, "v/c/0/0/0");
    EXPECT_EQ(e.context().array, "v");
    EXPECT_FALSE(e.context().codec.empty()) << e.what();
  }
}

TEST_P(LocalRead, AShardIndexPointingPastTheEndIsCorrupt) {
  if (!GetParam().starts_with("shard")) GTEST_SKIP();
  const fs::path shard = dir_ / "v/c/0/0/1";
  const auto size = fs::file_size(shard);
  {
    // Index at the end: 4 (offset, nbytes) pairs, then a crc32c.
    std::ifstream in(shard, std::ios::binary);
    std::vector<char> b(size);
    in.read(b.data(), std::streamsize(size));
    const std::size_t index_bytes = 4 * 2 * 8 + 4;
    std::vector<char> cut(b.begin() + std::ptrdiff_t(size - index_bytes), b.end());
    // Keep only the index: every entry now points past the end.
    std::ofstream out(shard, std::ios::binary | std::ios::trunc);
    out.write(cut.data(), std::streamsize(cut.size()));
  }
  try {
    read(":,:,:", values_.size());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::corrupt_data) << e.what();
    EXPECT_EQ(e.context().chunk_key, "v/c/0/0/1");
    // Uncompressed inner chunks (96 bytes) all lie past the 68 left; a
    // compressed one may fit and then fails in zstd instead.
    if (GetParam() == "shard_bytes") EXPECT_EQ(e.context().codec, "sharding_indexed") << e.what();
    else EXPECT_FALSE(e.context().codec.empty()) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Chains, LocalRead, ::testing::Values("bytes", "zstd", "shard_bytes", "shard_zstd"));

}  // namespace
}  // namespace zarrgpu
