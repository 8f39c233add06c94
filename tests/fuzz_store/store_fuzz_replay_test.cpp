// Every input in fuzz/store/regressions once crashed the store fuzzer (or made
// it allocate beyond the metadata): each must now end in success or a
// documented Error. The harness aborts otherwise, which fails this test.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "store_input.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void append_entry(std::vector<std::uint8_t>& out, const std::string& key, const std::string& value) {
  out.insert(out.end(), key.begin(), key.end());
  out.push_back(0);
  for (int k = 0; k < 4; ++k) out.push_back(std::uint8_t(value.size() >> (8 * k)));
  out.insert(out.end(), value.begin(), value.end());
}

TEST(StoreFuzzReplay, RegressionInputs) {
  const fs::path dir = fs::path(STORE_FUZZ_DIR) / "regressions";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename().string().starts_with(".")) continue;
    SCOPED_TRACE(e.path().string());
    const auto data = read_file(e.path());
    zarrgpu::fuzz::run_store_input(data.data(), data.size());
    ++n;
  }
  std::printf("replayed %d regression input(s)\n", n);
}

TEST(StoreFuzzReplay, ArchiveLoadsTheStoreItDescribes) {
  std::vector<std::uint8_t> in;
  append_entry(in, "zarr.json",
               R"({"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint8",
                   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
                   "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": ["bytes"]})");
  append_entry(in, "c/0", std::string("\x01\x02\x03\x04", 4));
  append_entry(in, "../escape", "x");  // a key no store accepts: left out
  auto store = zarrgpu::fuzz::load_store_archive(in.data(), in.size());
  EXPECT_EQ(store->list("").size(), 2u);
  auto a = zarrgpu::Array::open(store, "");
  EXPECT_EQ(std::to_integer<int>(a.read(zarrgpu::Selection()).data()[3]), 4);
  zarrgpu::fuzz::run_store_input(in.data(), in.size());
  // A truncated archive loads what came before the cut.
  in.resize(in.size() - 3);
  EXPECT_EQ(zarrgpu::fuzz::load_store_archive(in.data(), in.size())->list("").size(), 2u);
}

}  // namespace
