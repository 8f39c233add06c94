// When the blosc codec's batched GPU decoder takes a batch from CPU threads
// (blosc_device_choice.hpp), which inner compressors it takes at all, and
// which statuses hand a chunk back to CPU threads (host code).
#include <gtest/gtest.h>

#include "codec/bytes_to_bytes/blosc/blosc_device_choice.hpp"
#include "codec/bytes_to_bytes/blosc/blosc_device_decoder.hpp"
#include "codec/bytes_to_bytes/blosc/decoder/status.hpp"
#include "codec/codec.hpp"
#include "zarrgpu/config.hpp"

namespace zarrgpu::codec::blosc_device {
namespace {

DecodeResources with(unsigned sms, unsigned threads) { return {sms, threads}; }

TEST(BloscDeviceChoice, TheGpuDecodesBloscLzAndLz4Streams) {
  for (const char* c : {"blosclz", "lz4", "lz4hc"}) EXPECT_TRUE(gpu_decodes(c)) << c;
  for (const char* c : {"zlib", "zstd", "snappy", ""}) EXPECT_FALSE(gpu_decodes(c)) << c;
}

TEST(BloscDeviceChoice, BlocksAreEstimatedFromTheChunkSize) {
  EXPECT_EQ(estimated_blocks(10, 1), 10u);                              // a small chunk is one block
  EXPECT_EQ(estimated_blocks(10, kAssumedBlockBytes), 10u);
  EXPECT_EQ(estimated_blocks(10, kAssumedBlockBytes + 1), 20u);
  EXPECT_EQ(estimated_blocks(26, 16'600'000), 26u * 32);                // the ERA5 batch
  EXPECT_EQ(estimated_blocks(0, 16'600'000), 0u);
  EXPECT_EQ(estimated_blocks(SIZE_MAX / 2, 1 << 30), SIZE_MAX);         // saturates
}

TEST(BloscDeviceChoice, BatchesGoToTheGpuFromTheBlockThresholdOn) {
  const DecodeResources w = with(132, 16);
  EXPECT_EQ(block_threshold(w), std::min(kBlocksPerSm * 132, kBlocksPerCpuThread * 16));
  EXPECT_GE(block_threshold(with(0, 0)), 1u);
  const std::size_t t = block_threshold(w);
  EXPECT_FALSE(prefers_gpu(t - 1, 1000, w));  // one block each
  EXPECT_TRUE(prefers_gpu(t, 1000, w));
  EXPECT_FALSE(prefers_gpu(0, 16'600'000, w));  // all missing
  // The ERA5 batch of 26 chunks of 16.6 MB has ~830 blocks of 512 KiB: too
  // few threads for the GPU; batches of 4x as many go there.
  EXPECT_FALSE(prefers_gpu(26, 16'600'000, w));
  EXPECT_TRUE(prefers_gpu(4 * 26, 16'600'000, w));
}

TEST(BloscDeviceChoice, DescriptionNamesTheRuleOrWhyNot) {
  EXPECT_NE(describe(DecoderChoice::auto_, "lz4", with(132, 16)).find(">= " + std::to_string(block_threshold(with(132, 16)))),
            std::string::npos);
  EXPECT_NE(describe(DecoderChoice::cpu, "lz4", with(132, 16)).find("blosc_decoder=cpu"), std::string::npos);
  EXPECT_NE(describe(DecoderChoice::gpu, "blosclz", with(132, 16)).find("blosc_decoder=gpu"), std::string::npos);
  const std::string zlib = describe(DecoderChoice::gpu, "zlib", with(132, 16));
  EXPECT_NE(zlib.find("CPU threads"), std::string::npos) << zlib;
  EXPECT_NE(zlib.find("no zlib"), std::string::npos) << zlib;
}

const BatchedDeviceDecoder* form_of(const std::string& name, const std::string& cname) {
  static std::vector<std::unique_ptr<Codec>> keep;
  keep.push_back(make_codec({name, {{"cname", cname}, {"clevel", 5}, {"shuffle", 1}}},
                            ChunkRepresentation{{16}, DataType::float32, {}}));
  const auto* b2b = dynamic_cast<const BytesToBytesCodec*>(keep.back().get());
  return b2b ? b2b->device_decoder() : nullptr;
}

// Every blosc codec offers a device form, named for the read's report; one
// of a cname the GPU does not decode always chooses CPU threads.
TEST(BloscDeviceChoice, TheCodecsDeviceFormFollowsItsCnameAndTheConfig) {
  const Config saved = config();
  for (const char* name : {"blosc", "numcodecs.blosc"}) {
    for (const char* cname : {"blosclz", "lz4", "lz4hc", "zlib", "zstd", "snappy"}) {
      SCOPED_TRACE(std::string(name) + " " + cname);
      const BatchedDeviceDecoder* d = form_of(name, cname);
      ASSERT_NE(d, nullptr);
      EXPECT_EQ(d, &blosc_device_decoder(cname));
      for (DecoderChoice c : {DecoderChoice::cpu, DecoderChoice::gpu, DecoderChoice::auto_}) {
        Config changed = saved;
        changed.blosc_decoder = c;
        changed.lz4_decoder = changed.zstd_decoder = DecoderChoice::cpu;  // not theirs
        set_config(changed);
        EXPECT_EQ(d->choice(), gpu_decodes(cname) ? c : DecoderChoice::cpu);
        EXPECT_EQ(d->describe_choice(with(132, 16)), describe(c, cname, with(132, 16)));
      }
      EXPECT_EQ(d->prefers_device(26, 16'600'000, with(132, 16)), prefers_gpu(26, 16'600'000, with(132, 16)));
    }
  }
  set_config(saved);
}

// Frames of streams the GPU leaves to the host go back to CPU threads;
// every other failure is corrupt data.
TEST(BloscDeviceChoice, OnlyHostOnlyAndUnsupportedCodecsHandAChunkBack) {
  const BatchedDeviceDecoder& d = blosc_device_decoder("lz4");
  for (std::uint32_t s = 1; s <= static_cast<std::uint32_t>(blosc::Status::invalid_argument); ++s) {
    const auto st = static_cast<blosc::Status>(s);
    EXPECT_EQ(d.needs_host(s), st == blosc::Status::host_only_codec || st == blosc::Status::unsupported_codec)
        << blosc::status_name(st);
    EXPECT_NE(d.status_name(s).find(blosc::status_name(st)), std::string::npos);
  }
}

}  // namespace
}  // namespace zarrgpu::codec::blosc_device
