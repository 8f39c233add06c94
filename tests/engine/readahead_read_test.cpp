// Reads through a LocalStore with every read-ahead setting (off, one item,
// a few items, the default) give the same values: whole and
// partial selections, missing chunks, plain, zstd and sharded arrays. Chunks
// hold 1 MiB of incompressible values, so that the zstd chains make hints
// (smaller ones are not: store::kMinHintBytes; plain bytes make none).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <numeric>

#include "store/page_cache_readahead.hpp"
#include "codec_chains.hpp"
#include "zarrgpu/array.hpp"
#include "zarrgpu/config.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu {
namespace {

namespace fs = std::filesystem;

std::vector<CodecSpec> chain(const std::string& kind) { return testing::codec_chain(kind, {1, 512, 512}); }

// Sets Config::readahead_bytes for one scope.
class ReadaheadSetting {
 public:
  explicit ReadaheadSetting(std::uint64_t bytes) : saved_(config()) {
    Config c = saved_;
    c.readahead_bytes = bytes;
    set_config(c);
  }
  ~ReadaheadSetting() { set_config(saved_); }

 private:
  Config saved_;
};

class ReadaheadRead : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("zarrgpu_readahead_read_" + std::to_string(::getpid()) + "_" + GetParam());
    fs::remove_all(dir_);
    store_ = open_local_store(dir_.string(), true);
    ArrayMetadata m;
    m.shape = {kSteps, 512, 600};
    m.chunk_shape = {2, 512, 512};  // 3 x 1 x 2 chunks (edge chunks along dims 0 and 2)
    if (!GetParam().starts_with("shard")) m.chunk_shape[0] = 1;  // 1 MiB chunks, 5 x 1 x 2
    m.data_type = DataType::uint32;
    m.fill_value = FillValue::of(std::uint32_t(7));
    m.codecs = chain(GetParam());
    Array a = Array::create(store_, "v", m);
    values_.resize(kSteps * 512 * 600);
    std::uint64_t x = 0x9e3779b97f4a7c15ull;
    for (auto& v : values_) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      v = std::uint32_t(x >> 32) | 8;  // never the fill value
    }
    a.write({}, std::as_bytes(std::span(values_)));
  }
  void TearDown() override {
    store::wait_for_background_advice();  // no hint still opening files being removed
    fs::remove_all(dir_);
  }

  static constexpr std::uint64_t kSteps = 5;

  std::vector<std::uint32_t> read(const std::string& sel, std::size_t n, unsigned threads) {
    std::vector<std::uint32_t> out(n);
    Array::open(store_, "v").read(Selection::parse(sel), std::as_writable_bytes(std::span(out)),
                                 ReadOptions{.threads = threads});
    return out;
  }

  fs::path dir_;
  std::shared_ptr<Store> store_;
  std::vector<std::uint32_t> values_;
};

// Off, one byte (one item ahead), three MiB, the default (256 MiB).
constexpr std::uint64_t kSettings[] = {0, 1, 3 << 20, Config{}.readahead_bytes};

TEST_P(ReadaheadRead, EverySettingReadsTheSameValues) {
  for (const std::uint64_t setting : kSettings) {
    ReadaheadSetting scope(setting);
    for (unsigned threads : {1u, 2u, 0u}) {
      SCOPED_TRACE("readahead_bytes " + std::to_string(setting) + ", threads " +
                   std::to_string(threads));
      EXPECT_TRUE(read(":,:,:", values_.size(), threads) == values_);
      // A partial selection: every chunk placed through a strided copy.
      const auto part = read("1:5:2,100:400:3,::-5", 2 * 100 * 120, threads);
      std::size_t wrong = 0;
      for (std::size_t t = 0; t < 2; ++t)
        for (std::size_t y = 0; y < 100; ++y)
          for (std::size_t k = 0; k < 120; ++k)
            wrong += part[(t * 100 + y) * 120 + k] != values_[((1 + 2 * t) * 512 + 100 + 3 * y) * 600 + (599 - 5 * k)];
      EXPECT_EQ(wrong, 0u);
    }
  }
}

TEST_P(ReadaheadRead, MissingChunksReadAsTheFillValueWithReadahead) {
  fs::remove_all(dir_ / "v/c/1");  // steps 1 (for sharded arrays: 2 and 3)
  const bool sharded = GetParam().starts_with("shard");
  for (const std::uint64_t setting : kSettings) {
    ReadaheadSetting scope(setting);
    const auto got = read(":,:,:", values_.size(), 0);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < values_.size(); ++i) {
      const std::size_t step = i / (512 * 600);
      const bool gone = sharded ? step == 2 || step == 3 : step == 1;
      wrong += got[i] != (gone ? 7u : values_[i]);
    }
    EXPECT_EQ(wrong, 0u) << "readahead_bytes " << setting;
  }
}

INSTANTIATE_TEST_SUITE_P(Chains, ReadaheadRead, ::testing::Values("bytes", "zstd", "shard_bytes", "shard_zstd"));

}  // namespace
}  // namespace zarrgpu
