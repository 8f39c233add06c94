// The agreed mapping from format 2 fields to a format 3 chain (see
// src/metadata/v2_codec_chain.cpp).
#include "metadata_test_support.hpp"

namespace zarrgpu {
namespace {
using testing::throws_error;

std::vector<CodecSpec> chain(json filters, json compressor, DataType t = DataType::float32,
                             Endian e = Endian::little, char order = 'C', std::size_t ndim = 2) {
  ArrayMetadata::V2 v2;
  v2.order = order;
  v2.endian = e;
  v2.filters = std::move(filters);
  v2.compressor = std::move(compressor);
  return v2_codec_chain(v2, t, ndim, "arr");
}

const CodecSpec kBytesLE{"bytes", {{"endian", "little"}}, true};

TEST(V2CodecChain, RawLittleAndBigEndian) {
  EXPECT_EQ(chain(nullptr, nullptr), (std::vector<CodecSpec>{kBytesLE}));
  EXPECT_EQ(chain(nullptr, nullptr, DataType::float64, Endian::big),
            (std::vector<CodecSpec>{{"bytes", {{"endian", "big"}}, true}}));
  // 1-byte types leave endian out (Zarr v3 core §"bytes").
  EXPECT_EQ(chain(nullptr, nullptr, DataType::uint8), (std::vector<CodecSpec>{{"bytes", json::object(), true}}));
  EXPECT_EQ(chain(nullptr, nullptr, DataType::bool_), (std::vector<CodecSpec>{{"bytes", json::object(), true}}));
}

TEST(V2CodecChain, OrderFTransposesOnlyAboveOneDimension) {
  EXPECT_EQ(chain(nullptr, nullptr, DataType::float32, Endian::little, 'F', 3).front(),
            (CodecSpec{"transpose", {{"order", {2, 1, 0}}}, true}));
  EXPECT_EQ(chain(nullptr, nullptr, DataType::float32, Endian::little, 'F', 1), (std::vector<CodecSpec>{kBytesLE}));
  EXPECT_EQ(chain(nullptr, nullptr, DataType::float32, Endian::little, 'F', 0), (std::vector<CodecSpec>{kBytesLE}));
}

TEST(V2CodecChain, Compressors) {
  EXPECT_EQ(chain(nullptr, {{"id", "zstd"}, {"level", 19}})[1],
            (CodecSpec{"zstd", {{"level", 19}, {"checksum", false}}, true}));
  EXPECT_EQ(chain(nullptr, {{"id", "zstd"}, {"level", 1}, {"checksum", true}})[1],
            (CodecSpec{"zstd", {{"level", 1}, {"checksum", true}}, true}));
  EXPECT_EQ(chain(nullptr, {{"id", "gzip"}, {"level", 5}})[1], (CodecSpec{"gzip", {{"level", 5}}, true}));
  EXPECT_EQ(chain(nullptr, {{"id", "zlib"}, {"level", 4}})[1], (CodecSpec{"numcodecs.zlib", {{"level", 4}}, true}));
  EXPECT_EQ(chain(nullptr, {{"id", "lz4"}, {"acceleration", 2}})[1],
            (CodecSpec{"numcodecs.lz4", {{"acceleration", 2}}, true}));
}

TEST(V2CodecChain, BloscShuffleAndTypesize) {
  auto blosc = [](int shuffle, DataType t) {
    return chain(nullptr, {{"id", "blosc"}, {"cname", "zstd"}, {"clevel", 5}, {"shuffle", shuffle}, {"blocksize", 0}},
                 t)
        .back();
  };
  EXPECT_EQ(blosc(0, DataType::float64),
            (CodecSpec{"blosc",
                       {{"cname", "zstd"}, {"clevel", 5}, {"shuffle", "noshuffle"}, {"typesize", 8}, {"blocksize", 0}},
                       true}));
  EXPECT_EQ(blosc(1, DataType::float32).configuration["shuffle"], "shuffle");
  EXPECT_EQ(blosc(2, DataType::int16).configuration["shuffle"], "bitshuffle");
  EXPECT_EQ(blosc(2, DataType::int16).configuration["typesize"], 2);
  // numcodecs AUTOSHUFFLE
  EXPECT_EQ(blosc(-1, DataType::uint8).configuration["shuffle"], "bitshuffle");
  EXPECT_EQ(blosc(-1, DataType::int32).configuration["shuffle"], "shuffle");
  EXPECT_TRUE(throws_error([&] { blosc(3, DataType::int32); }, ErrorKind::invalid_metadata,
                           {"'arr'", "compressor.shuffle", "3"}));
  EXPECT_TRUE(throws_error([] { chain(nullptr, {{"id", "blosc"}, {"cname", "brotli"}}); }, ErrorKind::unsupported,
                           {"'arr'", "compressor.cname", "brotli"}));
}

TEST(V2CodecChain, ValueFiltersMayChangeTheType) {
  json fso = {{"id", "fixedscaleoffset"}, {"offset", 250}, {"scale", 100}, {"dtype", "<f8"}, {"astype", ">i2"}};
  auto c = chain(json::array({fso}), {{"id", "blosc"}, {"cname", "lz4"}, {"clevel", 5}, {"shuffle", -1}},
                 DataType::float64);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], (CodecSpec{"numcodecs.fixedscaleoffset",
                             {{"offset", 250}, {"scale", 100}, {"dtype", "<f8"}, {"astype", ">i2"}}, true}));
  // bytes and blosc see the filter's output type: big-endian int16.
  EXPECT_EQ(c[1], (CodecSpec{"bytes", {{"endian", "big"}}, true}));
  EXPECT_EQ(c[2].configuration["typesize"], 2);
  json delta = {{"id", "delta"}, {"dtype", "<i8"}, {"astype", "|i1"}};
  c = chain(json::array({delta}), nullptr, DataType::int64);
  EXPECT_EQ(c[0], (CodecSpec{"numcodecs.delta", {{"dtype", "<i8"}, {"astype", "|i1"}}, true}));
  EXPECT_EQ(c[1], (CodecSpec{"bytes", json::object(), true}));
}

TEST(V2CodecChain, ByteFiltersGoAfterBytes) {
  auto c = chain(json::array({{{"id", "shuffle"}, {"elementsize", 4}}}), {{"id", "zstd"}, {"level", 3}});
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], kBytesLE);
  EXPECT_EQ(c[1], (CodecSpec{"numcodecs.shuffle", {{"elementsize", 4}}, true}));
  EXPECT_EQ(c[2].name, "zstd");
}

TEST(V2CodecChain, RejectsWhatItCannotExpress) {
  EXPECT_TRUE(throws_error(
      [] { chain(json::array({{{"id", "shuffle"}, {"elementsize", 4}}, {{"id", "delta"}, {"dtype", "<f4"}}}), nullptr); },
      ErrorKind::unsupported, {"'arr'", "filters[1].id", "delta", "shuffle"}));
  EXPECT_TRUE(throws_error([] { chain(json::array({{{"id", "quantize"}}}), nullptr); }, ErrorKind::unsupported,
                           {"'arr'", "filters[0].id", "quantize"}));
  EXPECT_TRUE(throws_error([] { chain(nullptr, {{"id", "bz2"}}); }, ErrorKind::unsupported,
                           {"'arr'", "compressor.id", "bz2"}));
  EXPECT_TRUE(throws_error([] { chain(nullptr, {{"level", 1}}); }, ErrorKind::invalid_metadata,
                           {"'arr'", "compressor.id", "missing"}));
  EXPECT_TRUE(throws_error([] { chain(json::array({{{"id", "delta"}, {"astype", "<U3"}}}), nullptr, DataType::int32); },
                           ErrorKind::unsupported, {"filters[0].astype", "<U3"}));
  EXPECT_TRUE(throws_error([] { chain(nullptr, {{"id", "zstd"}, {"level", "high"}}); }, ErrorKind::invalid_metadata,
                           {"compressor.level"}));
}

}  // namespace
}  // namespace zarrgpu
