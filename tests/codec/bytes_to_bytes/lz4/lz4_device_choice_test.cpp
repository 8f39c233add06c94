// When the numcodecs.lz4 codec's batched GPU decoder takes a batch from CPU
// threads (lz4_device_choice.hpp), directly and as the codec's device form
// answers the read path (host code).
#include <gtest/gtest.h>

#include "codec/bytes_to_bytes/lz4/decoder/status.hpp"
#include "codec/bytes_to_bytes/lz4/lz4_device_choice.hpp"
#include "codec/bytes_to_bytes/lz4/lz4_device_decoder.hpp"
#include "codec/codec.hpp"
#include "zarrgpu/config.hpp"

namespace zarrgpu::codec::lz4_device {
namespace {

DecodeResources with(unsigned sms, unsigned threads) { return {sms, threads}; }

TEST(Lz4DeviceChoice, ThresholdIsTheSmallerOfGpuAndCpuBounds) {
  EXPECT_EQ(chunk_threshold(with(132, 16)), std::min(kChunksPerSm * 132, kChunksPerCpuThread * 16));
  EXPECT_EQ(chunk_threshold(with(132, 2)), kChunksPerCpuThread * 2);  // few CPU threads: the GPU pays off sooner
  EXPECT_EQ(chunk_threshold(with(4, 1000)), kChunksPerSm * 4);        // a small GPU: later
  EXPECT_GE(chunk_threshold(with(0, 0)), 1u);                          // unknown counts clamp to 1, never 0
}

TEST(Lz4DeviceChoice, ChunksGoToTheGpuFromTheThresholdOnWhateverTheirSize) {
  for (const auto [sms, threads] : {std::pair{132u, 16u}, std::pair{132u, 2u}, std::pair{8u, 64u}}) {
    const DecodeResources w = with(sms, threads);
    const std::size_t t = chunk_threshold(w);
    SCOPED_TRACE(std::to_string(sms) + " SMs, " + std::to_string(threads) + " threads: " + std::to_string(t));
    EXPECT_FALSE(prefers_gpu(t - 1, w));
    EXPECT_TRUE(prefers_gpu(t, w));
    EXPECT_FALSE(prefers_gpu(0, w));  // all missing
  }
  // One thread a chunk: the ERA5 batch (~26 chunks of 16.6 MB) stays on the CPU.
  EXPECT_FALSE(prefers_gpu(26, with(132, 16)));
}

TEST(Lz4DeviceChoice, DescriptionNamesTheRule) {
  EXPECT_NE(describe(DecoderChoice::auto_, with(132, 16)).find(">= " + std::to_string(chunk_threshold(with(132, 16))) + " chunks"),
            std::string::npos);
  EXPECT_NE(describe(DecoderChoice::cpu, with(132, 16)).find("lz4_decoder=cpu"), std::string::npos);
  EXPECT_NE(describe(DecoderChoice::gpu, with(132, 16)).find("lz4_decoder=gpu"), std::string::npos);
}

// The codec offers the form; it answers with the rule above and Config's
// lz4_decoder (not zstd's), and no status hands a chunk back: LZ4 has no
// frames the GPU leaves to the CPU.
TEST(Lz4DeviceChoice, TheCodecsDeviceFormAnswersWithTheRuleAndTheConfig) {
  const auto codec = make_codec({"numcodecs.lz4", {{"acceleration", 1}}}, ChunkRepresentation{{16}, DataType::uint8, {}});
  const auto* b2b = dynamic_cast<const BytesToBytesCodec*>(codec.get());
  ASSERT_NE(b2b, nullptr);
  ASSERT_EQ(b2b->device_decoder(), &lz4_device_decoder());
  const BatchedDeviceDecoder& d = lz4_device_decoder();
  for (std::size_t chunks : {std::size_t{0}, std::size_t{1}, std::size_t{3000}, std::size_t{100000}})
    EXPECT_EQ(d.prefers_device(chunks, 1 << 20, with(132, 16)), prefers_gpu(chunks, with(132, 16)));
  const Config saved = config();
  for (DecoderChoice c : {DecoderChoice::cpu, DecoderChoice::gpu, DecoderChoice::auto_}) {
    Config changed = saved;
    changed.lz4_decoder = c;
    changed.zstd_decoder = DecoderChoice::cpu;
    set_config(changed);
    EXPECT_EQ(d.choice(), c);
    EXPECT_EQ(d.describe_choice(with(132, 16)), describe(c, with(132, 16)));
  }
  set_config(saved);
  for (std::uint32_t s = 1; s <= static_cast<std::uint32_t>(lz4::Status::invalid_argument); ++s) {
    EXPECT_FALSE(d.needs_host(s)) << s;
    EXPECT_NE(d.status_name(s).find(lz4::status_name(static_cast<lz4::Status>(s))), std::string::npos);
  }
}

}  // namespace
}  // namespace zarrgpu::codec::lz4_device
