#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "npy_file.hpp"
#include "zarrgpu/error.hpp"

using namespace zarrgpu;
using namespace zarrgpu::cli;

namespace {
std::string dict_of(const std::string& h) { return h.substr(10); }
std::uint16_t header_len(const std::string& h) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(h[8]) | (static_cast<unsigned char>(h[9]) << 8));
}
}  // namespace

TEST(NpyFile, Descr) {
  EXPECT_EQ(npy_descr(DataType::float32), "<f4");
  EXPECT_EQ(npy_descr(DataType::bool_), "|b1");
  EXPECT_EQ(npy_descr(DataType::uint8), "|u1");
  EXPECT_EQ(npy_descr(DataType::int64), "<i8");
  EXPECT_EQ(npy_descr(DataType::float16), "<f2");
  EXPECT_EQ(npy_descr(DataType::complex64), "<c8");
  EXPECT_EQ(npy_descr(DataType::complex128), "<c16");
  EXPECT_EQ(npy_descr(DataType::bfloat16), "|V2");
}

TEST(NpyFile, HeaderMatchesNumPy) {
  std::vector<std::uint64_t> shape{3, 4};
  std::string h = npy_header(DataType::float32, shape);
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(h.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(h[6], 1);
  EXPECT_EQ(h[7], 0);
  EXPECT_EQ(header_len(h) + 10u, h.size());
  EXPECT_EQ(h.back(), '\n');
  // What np.save writes for np.zeros((3, 4), '<f4'), before padding.
  EXPECT_EQ(dict_of(h).rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 0), 0u);
}

TEST(NpyFile, ShapeTuples) {
  std::vector<std::uint64_t> one{7}, none{};
  EXPECT_NE(npy_header(DataType::int8, one).find("'shape': (7,), }"), std::string::npos);
  EXPECT_NE(npy_header(DataType::int8, none).find("'shape': (), }"), std::string::npos);
}

TEST(NpyFile, AtomicWriteLeavesOnlyTheFile) {
  auto dir = std::filesystem::temp_directory_path() / ("npy_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "a.npy").string();
  std::vector<std::uint64_t> shape{2};
  float data[2] = {1.5f, -2.0f};
  write_npy_atomic(path, DataType::float32, shape, {reinterpret_cast<const std::byte*>(data), sizeof data});
  std::ifstream f(path, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), {});
  ASSERT_EQ(all.size(), 128u + 8u);  // np.save's header for shape (2,) is 128 bytes
  float back[2];
  std::memcpy(back, all.data() + 128, 8);
  EXPECT_EQ(back[0], 1.5f);
  EXPECT_EQ(back[1], -2.0f);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  std::filesystem::remove_all(dir);
}

TEST(NpyFile, UnwritableDirectoryIsAnIoError) {
  std::vector<std::uint64_t> shape{1};
  std::byte b{};
  try {
    write_npy_atomic("/nonexistent-dir/x.npy", DataType::uint8, shape, {&b, 1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.npy"), std::string::npos);
  }
}
