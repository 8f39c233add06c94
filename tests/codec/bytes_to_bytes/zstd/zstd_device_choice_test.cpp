// When the zstd codec's batched GPU decoder takes a batch from CPU threads
// (zstd_device_choice.hpp), directly and as the codec's device decoder
// answers the read path (host code).
#include <gtest/gtest.h>

#include "codec/bytes_to_bytes/zstd/gpu/wave_layout.hpp"
#include "codec/bytes_to_bytes/zstd/zstd_device_choice.hpp"
#include "codec/bytes_to_bytes/zstd/zstd_device_decoder.hpp"
#include "gpu/staging_config.hpp"
#include "zarrgpu/config.hpp"

namespace zarrgpu::codec::zstd_device {
namespace {

DecodeResources with(unsigned sms, unsigned threads) { return {sms, threads}; }

TEST(ZstdDeviceChoice, ThresholdIsTheSmallerOfGpuAndCpuBounds) {
  // The GPU's bound grows with its SMs, the CPU's with its threads; the
  // threshold is the smaller, so either side may set it.
  EXPECT_EQ(frame_threshold(with(132, 16)), std::min(kFramesPerSm * 132, kFramesPerCpuThread * 16));
  EXPECT_EQ(frame_threshold(with(132, 2)), kFramesPerCpuThread * 2);  // few CPU threads: the GPU pays off sooner
  EXPECT_EQ(frame_threshold(with(4, 1000)), kFramesPerSm * 4);        // a small GPU: later
  EXPECT_LE(frame_threshold(with(132, 2)), frame_threshold(with(132, 16)));
  EXPECT_LE(frame_threshold(with(66, 1000)), frame_threshold(with(132, 1000)));
  EXPECT_GE(frame_threshold(with(0, 0)), 1u);  // unknown counts clamp to 1, never 0
}

constexpr std::size_t kSmall = 64 << 10, kLarge = 16'600'000;

TEST(ZstdDeviceChoice, SmallFramesGoToTheGpuFromTheThresholdOn) {
  for (const auto [sms, threads] : {std::pair{132u, 16u}, std::pair{132u, 2u}, std::pair{8u, 64u}}) {
    const DecodeResources w = with(sms, threads);
    const std::size_t t = frame_threshold(w);
    SCOPED_TRACE(std::to_string(sms) + " SMs, " + std::to_string(threads) + " threads: " + std::to_string(t));
    EXPECT_FALSE(prefers_gpu(t - 1, kSmall, w));
    EXPECT_TRUE(prefers_gpu(t, kSmall, w));
    EXPECT_TRUE(prefers_gpu(4 * t, kSmall, w));
    EXPECT_FALSE(prefers_gpu(1, kSmall, w));
    EXPECT_FALSE(prefers_gpu(0, kSmall, w));  // all missing
    // Just under the large-frame size: still the frame-count rule.
    EXPECT_FALSE(prefers_gpu(t - 1, kLargeFrameBytes - 1, w));
  }
}

TEST(ZstdDeviceChoice, LargeFramesGoToTheGpuInAnyNumber) {
  // The ERA5 batch: ~30 frames of 16.6 MB, decoded block-parallel.
  EXPECT_TRUE(prefers_gpu(30, kLarge, with(132, 16)));
  EXPECT_TRUE(prefers_gpu(1, kLargeFrameBytes, with(132, 16)));
  EXPECT_FALSE(prefers_gpu(0, kLarge, with(132, 16)));  // all missing
}

TEST(ZstdDeviceChoice, DescriptionNamesTheRule) {
  const std::string threshold = ">= " + std::to_string(frame_threshold(with(132, 16))) + " frames";
  EXPECT_NE(describe(DecoderChoice::auto_, with(132, 16)).find(threshold), std::string::npos);
  EXPECT_NE(describe(DecoderChoice::auto_, with(132, 16)).find("frames of >= 512 KiB"), std::string::npos);
  EXPECT_NE(describe(DecoderChoice::cpu, with(132, 16)).find("zstd_decoder=cpu"), std::string::npos);
  EXPECT_NE(describe(DecoderChoice::gpu, with(132, 16)).find("zstd_decoder=gpu"), std::string::npos);
}

// The read path asks the codec's decoder, which answers with the rule above
// and Config's zstd_decoder.
TEST(ZstdDeviceChoice, TheCodecsDecoderAnswersWithTheRuleAndTheConfig) {
  const BatchedDeviceDecoder& d = zstd_device_decoder();
  for (std::size_t frames : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{10000}})
    for (std::size_t bytes : {kSmall, kLarge})
      EXPECT_EQ(d.prefers_device(frames, bytes, with(132, 16)), prefers_gpu(frames, bytes, with(132, 16)));
  const Config saved = config();
  for (DecoderChoice c : {DecoderChoice::cpu, DecoderChoice::gpu, DecoderChoice::auto_}) {
    Config changed = saved;
    changed.zstd_decoder = c;
    set_config(changed);
    EXPECT_EQ(d.choice(), c);
    EXPECT_EQ(d.describe_choice(with(132, 16)), describe(c, with(132, 16)));
  }
  set_config(saved);
}

// A full batch of the CLI store's 16.6 MB frames at the default scratch
// is one wave of the GPU decoder's default temp budget: a change to the
// decoder's scratch a chunk that crosses it fails here, not in the read's
// benchmark (two waves cost that read 15%).
TEST(ZstdDeviceChoice, AFullBatchOfLargeFramesIsOneWaveOfTheDecodersTemp) {
  const std::uint64_t frame = kLarge, scratch = ::zarrgpu::gpu::StagingConfig{}.scratch_bytes;
  const ::zarrgpu::zstd::gpu::WaveLayout layout(frame);
  const std::uint64_t batch = scratch / frame;
  ASSERT_GE(batch, 1u);
  const std::size_t budget = zstd_device_decoder().default_temp_budget(scratch);
  EXPECT_EQ(budget, kTempPerScratch * scratch);
  EXPECT_EQ(layout.wave_chunks(budget, batch), batch);
}

}  // namespace
}  // namespace zarrgpu::codec::zstd_device
