// ChunkBatchCodec (src/engine/chunk_batch.hpp): batches of whole chunks from
// one-chunk documents of both formats, round trips, the stored bytes libzstd
// reads, which chains a GPU decodes without the CPU, and the errors.
#include <gtest/gtest.h>

#include <zstd.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "engine/chunk_batch.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine {
namespace {

json v3_document(const json& codecs, const std::string& data_type = "float32") {
  return {{"zarr_format", 3},
          {"node_type", "array"},
          {"shape", {4, 5}},
          {"data_type", data_type},
          {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {4, 5}}}}}},
          {"chunk_key_encoding", {{"name", "default"}}},
          {"fill_value", 0},
          {"codecs", codecs}};
}

json v2_document(const json& compressor, const std::string& dtype = "<f4", const json& filters = nullptr) {
  return {{"zarr_format", 2}, {"shape", {4, 5}},       {"chunks", {4, 5}}, {"dtype", dtype},
          {"compressor", compressor}, {"filters", filters}, {"order", "C"},   {"fill_value", 0}};
}

const json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kZstd = {{"name", "zstd"}, {"configuration", {{"level", 3}, {"checksum", false}}}};

std::vector<float> values(float start) {
  std::vector<float> v(20);
  std::iota(v.begin(), v.end(), start);
  return v;
}

std::span<const std::byte> as_bytes(const std::vector<float>& v) { return std::as_bytes(std::span(v)); }

// Encodes `chunks` through `c`, decodes them back and checks the values.
std::vector<Bytes> round_trip(const ChunkBatchCodec& c, const std::vector<std::vector<float>>& chunks) {
  std::vector<std::span<const std::byte>> in;
  for (const auto& v : chunks) in.push_back(as_bytes(v));
  std::vector<Bytes> encoded = c.encode(in, {});
  std::vector<std::vector<float>> decoded(chunks.size(), std::vector<float>(20, -1.0f));
  std::vector<std::span<const std::byte>> enc;
  std::vector<std::span<std::byte>> out;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    enc.emplace_back(encoded[i].data(), encoded[i].size());
    out.push_back(std::as_writable_bytes(std::span(decoded[i])));
  }
  c.decode(enc, out, {});
  EXPECT_EQ(decoded, chunks);
  return encoded;
}

TEST(ChunkBatchCodec, FormatThreeZstdRoundTripsAndLibzstdReadsTheFrames) {
  const auto c = ChunkBatchCodec::from_document(v3_document({kBytes, kZstd}), "a");
  EXPECT_EQ(c.chunk_bytes(), 80u);
  ASSERT_TRUE(c.device_form());
  EXPECT_EQ(*c.device_form(), ChunkBatchCodec::DeviceForm::zstd);
  const std::vector<std::vector<float>> chunks = {values(0), values(100), values(-7)};
  const auto encoded = round_trip(c, chunks);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    std::vector<float> plain(20);
    ASSERT_EQ(ZSTD_decompress(plain.data(), 80, encoded[i].data(), encoded[i].size()), 80u);
    EXPECT_EQ(plain, chunks[i]);
  }
}

TEST(ChunkBatchCodec, FormatTwoChainsComeFromCompressorFiltersAndDtype) {
  const json zstd2 = {{"id", "zstd"}, {"level", 1}};
  const auto plain = ChunkBatchCodec::from_document(v2_document(zstd2), "a");
  ASSERT_TRUE(plain.device_form());
  EXPECT_EQ(*plain.device_form(), ChunkBatchCodec::DeviceForm::zstd);
  round_trip(plain, {values(1), values(2)});

  // Big-endian storage needs a byte swap: not a GPU form, still decodes to native values.
  const auto big = ChunkBatchCodec::from_document(v2_document(zstd2, ">f4"), "a");
  EXPECT_FALSE(big.device_form());
  const auto encoded = round_trip(big, {values(3)});
  std::vector<std::uint8_t> raw(80);
  ASSERT_EQ(ZSTD_decompress(raw.data(), 80, encoded[0].data(), encoded[0].size()), 80u);
  EXPECT_EQ(raw[3], 0u);  // 3.0f big-endian: 40 40 00 00
  EXPECT_EQ(raw[0], 0x40u);

  const auto none = ChunkBatchCodec::from_document(v2_document(nullptr), "a");
  ASSERT_TRUE(none.device_form());
  EXPECT_EQ(*none.device_form(), ChunkBatchCodec::DeviceForm::copy);
  round_trip(none, {values(4)});
}

TEST(ChunkBatchCodec, OtherChainsDecodeOnTheCpuOnly) {
  const json gzip = {{"name", "gzip"}, {"configuration", {{"level", 5}}}};
  const json crc = {{"name", "crc32c"}};
  const json transpose = {{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}};
  for (const json& codecs : {json{kBytes, gzip}, json{kBytes, kZstd, crc}, json{transpose, kBytes, kZstd}}) {
    const auto c = ChunkBatchCodec::from_document(v3_document(codecs), "a");
    EXPECT_FALSE(c.device_form()) << codecs.dump();
    round_trip(c, {values(5), values(6)});
  }
}

TEST(ChunkBatchCodec, CorruptChunksNameTheirKeyAndCodec) {
  const auto c = ChunkBatchCodec::from_document(v3_document({kBytes, kZstd}), "arr");
  const std::vector<std::byte> junk(13, std::byte{0x5a});
  std::vector<float> out(20);
  const std::vector<std::span<const std::byte>> in = {junk};
  const std::vector<std::span<std::byte>> dst = {std::as_writable_bytes(std::span(out))};
  const std::vector<std::string> keys = {"arr/c/1/0"};
  try {
    c.decode(in, dst, keys);
    FAIL() << "junk decoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::corrupt_data);
    EXPECT_EQ(e.context().chunk_key, "arr/c/1/0");
    EXPECT_EQ(e.context().codec, "zstd");
    EXPECT_EQ(e.context().array, "arr");
  }
}

TEST(ChunkBatchCodec, WrongSizesAndVariableLengthTypesAreRefused) {
  const auto c = ChunkBatchCodec::from_document(v3_document(json::array({kBytes})), "a");
  std::vector<float> small(3);
  const std::vector<float> full = values(0);
  const std::vector<std::span<const std::byte>> in = {as_bytes(full)};
  const std::vector<std::span<std::byte>> dst = {std::as_writable_bytes(std::span(small))};
  try {
    c.decode(in, dst, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
  const std::vector<std::span<const std::byte>> short_in = {std::as_bytes(std::span(small))};
  EXPECT_THROW(c.encode(short_in, {}), Error);
  try {
    ChunkBatchCodec::from_document(v3_document(json::array({json{{"name", "vlen-utf8"}}}), "string"), "s");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
  }
  try {
    ChunkBatchCodec::from_document(v3_document(json::array({json{{"name", "no-such-codec"}}})), "a");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.context().codec, "no-such-codec");
  }
}

#if !defined(ZARRGPU_HAVE_CUDA)
TEST(ChunkBatchCodec, DeviceDecodingNeedsACudaBuild) {
  const std::vector<const void*> in = {nullptr};
  const std::vector<std::size_t> sizes = {1};
  const std::vector<void*> out = {nullptr};
  try {
    decode_zstd_on_device(0, in, sizes, out, sizes, {}, 0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
  }
}
#endif

}  // namespace
}  // namespace zarrgpu::engine
