#include <gtest/gtest.h>

#include "codec/codec.hpp"
#include "engine/device_read/device_chain.hpp"
#include "zarrgpu/config.hpp"

namespace zarrgpu::engine::device_read {
namespace {

using Mode = DeviceChain::Mode;

DeviceChain classify(std::vector<CodecSpec> specs, std::vector<std::uint64_t> shape, DataType t, bool device_decoders = true) {
  const auto chain = codec::CodecChain::build(specs, codec::ChunkRepresentation{shape, t, {}});
  return classify_chain(chain, device_decoders);
}

CodecSpec bytes(const char* endian = "little") { return {"bytes", {{"endian", endian}}}; }
CodecSpec zstd() { return {"zstd", {{"level", 3}, {"checksum", false}}}; }

TEST(DeviceChain, RawAndZstdDecodeOnTheGpu) {
  auto raw = classify({bytes()}, {4, 8}, DataType::float32);
  EXPECT_EQ(raw.mode, Mode::gpu);
  EXPECT_EQ(raw.decoder, nullptr);
  EXPECT_EQ(raw.swap, 0u);
  EXPECT_EQ(raw.decoded_bytes, 4u * 8 * 4);
  EXPECT_EQ(raw.src_strides, (std::vector<std::int64_t>{8, 1}));

  auto z = classify({bytes(), zstd()}, {4, 8}, DataType::float32);
  EXPECT_EQ(z.mode, Mode::gpu);
  EXPECT_NE(z.decoder, nullptr);
  EXPECT_EQ(z.gpu_codecs, "zstd");
}

TEST(DeviceChain, WithoutTheGpuDecoderZstdRunsOnCpuThreads) {
  auto z = classify({bytes("big"), zstd()}, {10}, DataType::int32, /*device_decoders=*/false);
  EXPECT_EQ(z.mode, Mode::cpu_bytes);
  EXPECT_EQ(z.swap, 4u);  // the GPU still swaps while placing
}

TEST(DeviceChain, OtherCompressorsDecodeOnCpuThreads) {
  auto g = classify({bytes(), {"gzip", {{"level", 5}}}}, {16}, DataType::uint16);
  EXPECT_EQ(g.mode, Mode::cpu_bytes);
  auto c = classify({bytes(), zstd(), {"crc32c", json::object()}}, {16}, DataType::uint16);
  EXPECT_EQ(c.mode, Mode::cpu_bytes);
}

// The read asks this decoder when to use it (BatchedDeviceDecoder::choice,
// prefers_device), also where the chain decodes its compressor on CPU threads.
TEST(DeviceChain, FindsTheDeviceDecoderOfAnyCompressorInTheChain) {
  auto find = [](std::vector<CodecSpec> specs) {
    const auto chain = codec::CodecChain::build(specs, codec::ChunkRepresentation{{16}, DataType::uint16, {}});
    return find_device_decoder(chain);
  };
  EXPECT_NE(find({bytes(), zstd()}), nullptr);
  EXPECT_NE(find({bytes(), zstd(), {"crc32c", json::object()}}), nullptr);
  EXPECT_EQ(find({bytes(), {"gzip", {{"level", 5}}}}), nullptr);
  EXPECT_EQ(find({bytes()}), nullptr);
}

CodecSpec blosc(const char* cname) { return {"blosc", {{"cname", cname}, {"clevel", 5}, {"shuffle", "shuffle"}}}; }
CodecSpec lz4() { return {"numcodecs.lz4", {{"acceleration", 1}}}; }

// numcodecs.lz4 and blosc decode on the GPU as zstd does, and name
// themselves in messages and in the read report.
TEST(DeviceChain, Lz4AndBloscDecodeOnTheGpu) {
  for (const auto& [spec, name] : {std::pair{lz4(), "numcodecs.lz4"}, std::pair{blosc("lz4"), "blosc"},
                                   std::pair{blosc("blosclz"), "blosc"}, std::pair{blosc("lz4hc"), "blosc"}}) {
    SCOPED_TRACE(name);
    const auto d = classify({bytes(), spec}, {4, 8}, DataType::float32);
    EXPECT_EQ(d.mode, Mode::gpu);
    EXPECT_NE(d.decoder, nullptr);
    EXPECT_EQ(d.gpu_codecs, name);
    const auto chain = codec::CodecChain::build(std::vector<CodecSpec>{bytes(), spec}, codec::ChunkRepresentation{{4, 8}, DataType::float32, {}});
    EXPECT_EQ(find_device_decoder(chain), d.decoder);
    EXPECT_EQ(device_decoder_codec(chain), name);
    // Without device decoders (the CPU side of a batch): CPU threads.
    EXPECT_EQ(classify({bytes(), spec}, {4, 8}, DataType::float32, false).mode, Mode::cpu_bytes);
  }
  const auto chain = codec::CodecChain::build(std::vector<CodecSpec>{bytes()}, codec::ChunkRepresentation{{4}, DataType::float32, {}});
  EXPECT_EQ(device_decoder_codec(chain), "");
}

// A blosc codec whose cname the GPU does not decode still offers its form
// (the read reports why it declines), and the form always chooses CPU threads.
TEST(DeviceChain, BloscOfACpuOnlyCodecOffersAFormThatDeclines) {
  for (const char* cname : {"zlib", "zstd", "snappy"}) {
    SCOPED_TRACE(cname);
    const auto chain = codec::CodecChain::build(std::vector<CodecSpec>{bytes(), blosc(cname)}, codec::ChunkRepresentation{{16}, DataType::int32, {}});
    const codec::BatchedDeviceDecoder* d = find_device_decoder(chain);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->choice(), DecoderChoice::cpu);
    EXPECT_NE(d->describe_choice({132, 16}).find(cname), std::string::npos);
  }
}

TEST(DeviceChain, BigEndianComplexSwapsEachPart) {
  auto c = classify({bytes("big")}, {3}, DataType::complex128);
  EXPECT_EQ(c.mode, Mode::gpu);
  EXPECT_EQ(c.swap, 8u);
}

TEST(DeviceChain, TransposeBecomesPermutedStrides) {
  // Encoded axis k = decoded axis order[k]: order [2, 0, 1] on a (2, 3, 4) chunk
  // stores a (4, 2, 3) array with C strides (6, 3, 1): decoded axis 2 -> 6,
  // axis 0 -> 3, axis 1 -> 1.
  auto t = classify({{"transpose", {{"order", {2, 0, 1}}}}, bytes(), zstd()}, {2, 3, 4}, DataType::float64);
  ASSERT_EQ(t.mode, Mode::gpu);
  EXPECT_EQ(t.src_strides, (std::vector<std::int64_t>{3, 1, 6}));
  // Two transposes compose: [1, 0] twice is the identity.
  auto twice = classify({{"transpose", {{"order", {1, 0}}}}, {"transpose", {{"order", {1, 0}}}}, bytes()}, {5, 7},
                        DataType::int8);
  EXPECT_EQ(twice.src_strides, (std::vector<std::int64_t>{7, 1}));
}

TEST(DeviceChain, IntegerDeltaOnTheGpuFloatDeltaOnCpu) {
  auto d = classify({{"numcodecs.delta", {{"dtype", "<i4"}}}, bytes(), zstd()}, {100}, DataType::int32);
  EXPECT_EQ(d.mode, Mode::gpu);
  EXPECT_NE(d.array_step, nullptr);
  auto f = classify({{"numcodecs.delta", {{"dtype", "<f8"}}}, bytes(), zstd()}, {100}, DataType::float64);
  EXPECT_EQ(f.mode, Mode::cpu);  // a float cumsum depends on the order of additions
  EXPECT_EQ(f.array_step, nullptr);
}

TEST(DeviceChain, ShuffleAfterZstdOnTheGpu) {
  auto s = classify({bytes(), {"numcodecs.shuffle", {{"elementsize", 4}}}, zstd()}, {64}, DataType::float32);
  EXPECT_EQ(s.mode, Mode::gpu);
  EXPECT_NE(s.bytes_step, nullptr);
  EXPECT_EQ(s.gpu_codecs, "zstd, numcodecs.shuffle");
}

TEST(DeviceChain, ShuffleTheGpuCannotDecodeRunsOnCpuThreads) {
  // Element sizes past the kernel's are legal numcodecs and decode on CPU threads.
  auto s = classify({bytes(), {"numcodecs.shuffle", {{"elementsize", 65}}}, zstd()}, {65}, DataType::uint8);
  EXPECT_EQ(s.mode, Mode::cpu_bytes);
  EXPECT_EQ(s.decoder, nullptr);
}

TEST(DeviceChain, TwoDeltasOrDeltaAndTransposeDecodeOnCpu) {
  const CodecSpec delta{"numcodecs.delta", {{"dtype", "<i4"}}};
  EXPECT_EQ(classify({delta, delta, bytes()}, {8}, DataType::int32).mode, Mode::cpu);
  EXPECT_EQ(classify({{"transpose", {{"order", {1, 0}}}}, delta, bytes()}, {2, 4}, DataType::int32).mode, Mode::cpu);
}

TEST(DeviceChain, NumcodecsZstdNamesItselfInMessages) {
  auto z = classify({bytes(), {"numcodecs.zstd", {{"level", 1}}}}, {16}, DataType::int16);
  EXPECT_EQ(z.mode, Mode::gpu);
  EXPECT_EQ(z.gpu_codecs, "numcodecs.zstd");
}

TEST(DeviceChain, NestedShardingDecodesOnCpu) {
  const json bytes_json = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  json config = json::object();
  config["chunk_shape"] = json::array({2});
  config["codecs"] = json::array({bytes_json});
  config["index_codecs"] = json::array({bytes_json, json{{"name", "crc32c"}}});
  CodecSpec shard{"sharding_indexed", config};
  auto s = classify({shard}, {8}, DataType::float32);
  EXPECT_EQ(s.mode, Mode::cpu);
  EXPECT_EQ(s.src_strides, (std::vector<std::int64_t>{1}));
}

}  // namespace
}  // namespace zarrgpu::engine::device_read
