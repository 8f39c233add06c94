// Differential tests: blocks written by liblz4 (every compressor, many data
// shapes, 1 B to 16 MiB) decode to the original bytes and to what liblz4's
// safe decoder gives, with nothing written past the capacity.
#include <gtest/gtest.h>

#include "block_corpus.hpp"

namespace zarrgpu::lz4::testing {
namespace {

const Compressor kAllCompressors[] = {{Compressor::fast, 1},   {Compressor::fast, 2},  {Compressor::fast, 17},
                                      {Compressor::fast, 1000}, {Compressor::hc, 3},   {Compressor::hc, 9},
                                      {Compressor::hc, 12}};

// Decodes `data`'s block with the exact capacity and with room to spare,
// and its numcodecs frame; returns the number of decodes checked.
int check_round_trip(const Bytes& data, Compressor c, const std::string& what) {
  const Bytes block = compress_block(data, c);
  Bytes ref;
  EXPECT_EQ(reference_decode(block, data.size(), &ref), static_cast<long>(data.size())) << what;
  for (const size_t spare : {size_t{0}, size_t{100}}) {
    const Guarded g = guarded_block(block, data.size() + spare);
    EXPECT_EQ(g.status, Status::ok) << what << " spare " << spare << ": " << status_name(g.status);
    EXPECT_TRUE(g.guard_ok) << what;
    EXPECT_TRUE(g.out == data) << what << " spare " << spare;
    EXPECT_TRUE(g.out == ref) << what;
  }
  const Guarded f = guarded_frame(numcodecs_frame(data, c), data.size());
  EXPECT_EQ(f.status, Status::ok) << what << " numcodecs frame: " << status_name(f.status);
  EXPECT_TRUE(f.out == data && f.guard_ok) << what << " numcodecs frame";
  return 3;
}

TEST(Lz4Differential, SmallAndMediumBlocksEveryCompressorEveryDataKind) {
  const size_t sizes[] = {1,   2,    3,    4,    5,    11,    12,    13,    14,    15,     16,     17,
                          19,  20,   31,   64,   255,  256,   270,   1000,  4096,  65535,  65536,  65537,
                          100000, 300001};
  int checked = 0;
  uint64_t seed = 1;
  for (const size_t n : sizes)
    for (int k = 0; k < static_cast<int>(DataKind::count); ++k)
      for (const Compressor c : kAllCompressors) {
        const Bytes data = make_data(static_cast<DataKind>(k), n, seed++);
        checked += check_round_trip(data, c,
                                    std::string(data_kind_name(static_cast<DataKind>(k))) + " " + std::to_string(n) +
                                        " B " + c.name());
      }
  EXPECT_EQ(checked, 26 * 7 * 7 * 3);
}

TEST(Lz4Differential, LargeBlocksUpTo16MiB) {
  const size_t sizes[] = {size_t{1} << 20, (size_t{4} << 20) + 3, size_t{16} << 20};
  const DataKind kinds[] = {DataKind::float_field, DataKind::random, DataKind::mixed, DataKind::zeros};
  const Compressor compressors[] = {{Compressor::fast, 1}, {Compressor::fast, 8}, {Compressor::hc, 4}};
  uint64_t seed = 1000;
  for (const size_t n : sizes)
    for (const DataKind k : kinds)
      for (const Compressor c : compressors)
        check_round_trip(make_data(k, n, seed++), c, std::string(data_kind_name(k)) + " " + std::to_string(n) + " B " +
                                                         c.name());
}

// Long overlapping matches (offset 1..8) and long literal runs: length
// extensions with many 255 bytes.
TEST(Lz4Differential, LongRunsAndShortPeriods) {
  for (size_t period = 1; period <= 8; ++period) {
    Bytes data(200000);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>((i % period) * 37 + 1);
    for (const Compressor c : kAllCompressors) check_round_trip(data, c, "period " + std::to_string(period) + " " + c.name());
  }
}

}  // namespace
}  // namespace zarrgpu::lz4::testing
