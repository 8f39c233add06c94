// Which codecs offer a device form (codec/device_decoder.hpp), and what the
// forms say: the device read path asks these, never a codec's name.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "codec/codec.hpp"

namespace zarrgpu::codec {
namespace {

ChunkRepresentation chunk(std::vector<std::uint64_t> shape, DataType t) { return {std::move(shape), t, {}}; }

template <class C>
std::unique_ptr<C> make(const CodecSpec& spec, const ChunkRepresentation& input) {
  auto c = make_codec(spec, input);
  auto* typed = dynamic_cast<C*>(c.get());
  EXPECT_NE(typed, nullptr) << spec.name;
  c.release();
  return std::unique_ptr<C>(typed);
}

TEST(DeviceForm, CompressorsWithABatchedDecoder) {
  const auto in = chunk({64}, DataType::float32);
  EXPECT_NE(make<BytesToBytesCodec>({"zstd", {{"level", 3}}}, in)->device_decoder(), nullptr);
  EXPECT_NE(make<BytesToBytesCodec>({"numcodecs.zstd", {{"level", 3}}}, in)->device_decoder(), nullptr);
  EXPECT_EQ(make<BytesToBytesCodec>({"gzip", {{"level", 5}}}, in)->device_decoder(), nullptr);
  EXPECT_EQ(make<BytesToBytesCodec>({"crc32c", json::object()}, in)->device_decoder(), nullptr);
  EXPECT_EQ(make<BytesToBytesCodec>({"numcodecs.shuffle", {{"elementsize", 4}}}, in)->device_decoder(), nullptr);
}

TEST(DeviceForm, ShuffleStepForTheElementSizesTheKernelTakes) {
  const auto in = chunk({64}, DataType::float32);
  for (int e : {1, 4, 64}) {
    EXPECT_NE(make<BytesToBytesCodec>({"numcodecs.shuffle", {{"elementsize", e}}}, in)->device_step(), nullptr) << e;
  }
  for (int e : {0, 65}) {
    EXPECT_EQ(make<BytesToBytesCodec>({"numcodecs.shuffle", {{"elementsize", e}}}, in)->device_step(), nullptr) << e;
  }
  EXPECT_EQ(make<BytesToBytesCodec>({"zstd", {{"level", 3}}}, in)->device_step(), nullptr);
}

TEST(DeviceForm, BytesIsASwapPlacementFolds) {
  auto swap = [](const char* endian, DataType t) {
    return make<ArrayToBytesCodec>({"bytes", {{"endian", endian}}}, chunk({4}, t))->device_swap(chunk({4}, t));
  };
  EXPECT_EQ(swap("little", DataType::int32), 0u);
  EXPECT_EQ(swap("big", DataType::int32), 4u);
  EXPECT_EQ(swap("big", DataType::complex64), 4u);  // each part
  EXPECT_EQ(swap("big", DataType::uint8), 0u);
  const json bytes_json = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  const CodecSpec shard{"sharding_indexed",
                        {{"chunk_shape", {2}}, {"codecs", json::array({bytes_json})},
                         {"index_codecs", json::array({bytes_json})}}};
  EXPECT_EQ(make<ArrayToBytesCodec>(shard, chunk({8}, DataType::int32))->device_swap(chunk({8}, DataType::int32)),
            std::nullopt);
}

TEST(DeviceForm, TransposeIsAStridePermutation) {
  const auto in = chunk({2, 3, 4}, DataType::float64);
  auto t = make<ArrayToArrayCodec>({"transpose", {{"order", {2, 0, 1}}}}, in);
  // Encoded (4, 2, 3) in C order: strides (6, 3, 1); decoded axis order[k] takes encoded axis k's.
  const std::vector<std::int64_t> encoded{6, 3, 1};
  EXPECT_EQ(t->decoded_strides(encoded), (std::vector<std::int64_t>{3, 1, 6}));
  EXPECT_EQ(t->device_step(in), nullptr);
}

TEST(DeviceForm, DeltaStepForIntegersOfOneWidth) {
  auto step = [](const char* dtype, const char* astype, DataType t) {
    CodecSpec s{"numcodecs.delta", {{"dtype", dtype}}};
    if (astype) s.configuration["astype"] = astype;
    auto c = make<ArrayToArrayCodec>(s, chunk({16}, t));
    EXPECT_EQ(c->decoded_strides(std::vector<std::int64_t>{1}), std::nullopt);
    return c->device_step(chunk({16}, t));
  };
  EXPECT_NE(step("<i4", nullptr, DataType::int32), nullptr);
  EXPECT_NE(step("<u2", "<i2", DataType::uint16), nullptr);
  EXPECT_EQ(step("<i8", "<i2", DataType::int64), nullptr);  // stored narrower: the scan would sum other values
  EXPECT_EQ(step("<f8", nullptr, DataType::float64), nullptr);  // a float cumsum depends on its order
  EXPECT_EQ(step("|b1", nullptr, DataType::bool_), nullptr);    // "any so far", not a sum
}


// A decoder whose scratch is laid out in waves, as the Zstd one's: per_chunk
// bytes a chunk, as many chunks as the budget holds, at least one.
class WaveDecoder final : public BatchedDeviceDecoder {
 public:
  static constexpr std::size_t per_chunk = 100;
  mutable int queries = 0;
  std::string describe_choice(const DecodeResources&) const override { return "test"; }
  std::size_t temp_bytes(std::size_t chunks, std::size_t, std::size_t budget, const DeviceChunkNeeds&) const override {
    ++queries;
    return per_chunk * std::max<std::size_t>(1, std::min(chunks, budget / per_chunk));
  }
  void decode_async(const DeviceBatch&, void*, std::size_t, DeviceStream) const override {}
  std::string status_name(std::uint32_t) const override { return {}; }
};

// whole_batch_fits says whether the budget leaves the worst case's scratch
// as it is (no wave split), asking the decoder once.
TEST(DeviceForm, WholeBatchFitsWhereTheBudgetSplitsNoWave) {
  const WaveDecoder d;
  for (std::size_t chunks : {1, 2, 7}) {
    for (std::size_t budget : {0, 50, 100, 199, 200, 700, 701}) {
      const bool unsplit = d.temp_bytes(chunks, 1, std::numeric_limits<std::size_t>::max(), {}) ==
                           d.temp_bytes(chunks, 1, budget, {});
      d.queries = 0;
      EXPECT_EQ(d.whole_batch_fits(chunks, 1, budget), unsplit) << chunks << " chunks, budget " << budget;
      EXPECT_LE(d.queries, 1) << chunks << " chunks, budget " << budget;
    }
  }
}

}  // namespace
}  // namespace zarrgpu::codec
