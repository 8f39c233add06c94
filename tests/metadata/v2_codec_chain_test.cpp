// The agreed mapping from format 2 fields to a format 3 chain (see
// src/metadata/v2_codec_chain.cpp).
#include "metadata/v2_codec_defaults.hpp"
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
  // (quantize and bz2 were the examples here until zarrgpu read them, issue 31.)
  EXPECT_TRUE(throws_error([] { chain(json::array({{{"id", "categorize"}}}), nullptr); }, ErrorKind::unsupported,
                           {"'arr'", "filters[0].id", "unsupported filter", "categorize"}));
  EXPECT_TRUE(throws_error([] { chain(nullptr, {{"id", "zfpy"}}); }, ErrorKind::unsupported,
                           {"'arr'", "compressor.id", "unsupported compressor", "zfpy"}));
  EXPECT_TRUE(throws_error([] { chain(nullptr, {{"level", 1}}); }, ErrorKind::invalid_metadata,
                           {"'arr'", "compressor.id", "missing"}));
  EXPECT_TRUE(throws_error([] { chain(json::array({{{"id", "delta"}, {"astype", "<U3"}}}), nullptr, DataType::int32); },
                           ErrorKind::unsupported, {"filters[0].astype", "<U3"}));
  EXPECT_TRUE(throws_error([] { chain(nullptr, {{"id", "zstd"}, {"level", "high"}}); }, ErrorKind::invalid_metadata,
                           {"compressor.level"}));
}

TEST(V2CodecChain, MoreNumcodecsIds) {
  // Compressors and checksums run under their numcodecs.* names, configuration as written.
  for (const char* id : {"bz2", "lzma", "crc32", "adler32", "crc32c", "fletcher32"}) {
    SCOPED_TRACE(id);
    const auto c = chain(nullptr, {{"id", id}, {"level", 1}});
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[1], (CodecSpec{std::string("numcodecs.") + id, {{"level", 1}}, true}));
  }
  // A checksum (or any bytes codec) as a filter goes after bytes, before the compressor.
  auto c = chain(json::array({{{"id", "crc32"}, {"location", "end"}}}), {{"id", "crc32c"}});
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[1], (CodecSpec{"numcodecs.crc32", {{"location", "end"}}, true}));
  EXPECT_EQ(c[2], (CodecSpec{"numcodecs.crc32c", json::object(), true}));
  // Value filters and the type they store.
  c = chain(json::array({{{"id", "astype"}, {"encode_dtype", ">i2"}, {"decode_dtype", "<i8"}}}),
            {{"id", "blosc"}, {"shuffle", 1}}, DataType::int64);
  EXPECT_EQ(c[0].name, "numcodecs.astype");
  EXPECT_EQ(c[1], (CodecSpec{"bytes", {{"endian", "big"}}, true}));
  EXPECT_EQ(c[2].configuration["typesize"], 2);
  c = chain(json::array({{{"id", "packbits"}}}), nullptr, DataType::bool_);
  EXPECT_EQ(c[0], (CodecSpec{"numcodecs.packbits", json::object(), true}));
  EXPECT_EQ(c[1], (CodecSpec{"bytes", json::object(), true}));
  c = chain(json::array({{{"id", "quantize"}, {"digits", 2}, {"dtype", "float64"}, {"astype", "float32"}}}), nullptr,
            DataType::float64);
  EXPECT_EQ(c[0].name, "numcodecs.quantize");
  EXPECT_EQ(c[1], kBytesLE);  // a float32 NumPy name: native (little) order
  c = chain(json::array({{{"id", "bitround"}, {"keepbits", 3}}}), nullptr, DataType::float32);
  EXPECT_EQ(c[0].name, "numcodecs.bitround");
  // An astype spelled as a NumPy name.
  c = chain(json::array({{{"id", "delta"}, {"dtype", "int64"}, {"astype", "int16"}}}), nullptr, DataType::int64);
  EXPECT_EQ(c[1], (CodecSpec{"bytes", {{"endian", "little"}}, true}));
}

TEST(V2CodecChain, LevelsAreNotCheckedOnRead) {
  EXPECT_EQ(chain(nullptr, {{"id", "gzip"}, {"level", -1}})[1], (CodecSpec{"gzip", {{"level", -1}}, true}));
  EXPECT_EQ(chain(nullptr, {{"id", "zstd"}, {"level", 100}})[1],
            (CodecSpec{"zstd", {{"level", 100}, {"checksum", false}}, true}));
}

TEST(V2CodecChain, WrittenWithNumcodecsDefaults) {
  EXPECT_EQ(v2_codec_with_defaults({{"id", "zstd"}}, DataType::float32, Endian::little),
            (json{{"id", "zstd"}, {"level", 0}}));  // no "checksum": TensorStore refuses it
  EXPECT_EQ(v2_codec_with_defaults({{"id", "blosc"}, {"cname", "zstd"}}, DataType::float32, Endian::little),
            (json{{"id", "blosc"}, {"cname", "zstd"}, {"clevel", 5}, {"shuffle", 1}, {"blocksize", 0}}));
  EXPECT_EQ(v2_codec_with_defaults({{"id", "astype"}, {"encode_dtype", "<f4"}}, DataType::float64, Endian::big),
            (json{{"id", "astype"}, {"encode_dtype", "<f4"}, {"decode_dtype", ">f8"}}));
  EXPECT_EQ(v2_codec_with_defaults({{"id", "delta"}, {"dtype", "<i4"}}, DataType::int32, Endian::little),
            (json{{"id", "delta"}, {"dtype", "<i4"}, {"astype", "<i4"}}));
  EXPECT_EQ(v2_codec_with_defaults({{"id", "crc32"}}, DataType::int32, Endian::little), (json{{"id", "crc32"}}));
  EXPECT_EQ(v2_codec_with_defaults(nullptr, DataType::int32, Endian::little), json(nullptr));
}

}  // namespace
}  // namespace zarrgpu
