// The per-batch choice between the GPU zstd decoder and CPU threads (host code).
#include <gtest/gtest.h>

#include "codec/bytes_to_bytes/zstd/gpu/wave_layout.hpp"
#include "engine/device_read/decoder_choice.hpp"
#include "gpu/staging_config.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine::device_read {
namespace {

TEST(DecoderChoice, ThresholdIsTheSmallerOfGpuAndCpuBounds) {
  // The GPU's bound grows with its SMs, the CPU's with its threads; the
  // threshold is the smaller, so either side may set it.
  EXPECT_EQ(gpu_zstd_frame_threshold(132, 16), std::min(kFramesPerSm * 132, kFramesPerCpuThread * 16));
  EXPECT_EQ(gpu_zstd_frame_threshold(132, 2), kFramesPerCpuThread * 2);  // few CPU threads: the GPU pays off sooner
  EXPECT_EQ(gpu_zstd_frame_threshold(4, 1000), kFramesPerSm * 4);        // a small GPU: later
  EXPECT_LE(gpu_zstd_frame_threshold(132, 2), gpu_zstd_frame_threshold(132, 16));
  EXPECT_LE(gpu_zstd_frame_threshold(66, 1000), gpu_zstd_frame_threshold(132, 1000));
  EXPECT_GE(gpu_zstd_frame_threshold(0, 0), 1u);  // unknown counts clamp to 1, never 0
}

ZstdBatch small(std::size_t frames) { return {frames, 64 << 10}; }
ZstdBatch large(std::size_t frames) { return {frames, 16'600'000}; }

TEST(DecoderChoice, SmallFramesGoToTheGpuFromTheThresholdOn) {
  for (const auto [sms, threads] : {std::pair{132u, 16u}, std::pair{132u, 2u}, std::pair{8u, 64u}}) {
    const std::size_t t = gpu_zstd_frame_threshold(sms, threads);
    SCOPED_TRACE(std::to_string(sms) + " SMs, " + std::to_string(threads) + " threads: " + std::to_string(t));
    EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, true, small(t - 1), sms, threads), ZstdDecoder::cpu);
    EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, true, small(t), sms, threads), ZstdDecoder::gpu);
    EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, true, small(4 * t), sms, threads), ZstdDecoder::gpu);
    EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, true, small(1), sms, threads), ZstdDecoder::cpu);
    EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, true, small(0), sms, threads), ZstdDecoder::cpu);  // all missing
    // Just under the large-frame size: still the frame-count rule.
    EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, true, {t - 1, kLargeFrameBytes - 1}, sms, threads),
              ZstdDecoder::cpu);
  }
}

TEST(DecoderChoice, LargeFramesGoToTheGpuInAnyNumber) {
  // The ERA5 batch: ~30 frames of 16.6 MB, decoded block-parallel.
  EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, true, large(30), 132, 16), ZstdDecoder::gpu);
  EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, true, {1, kLargeFrameBytes}, 132, 16), ZstdDecoder::gpu);
  EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, true, large(0), 132, 16), ZstdDecoder::cpu);  // all missing
}

TEST(DecoderChoice, OverridesWin) {
  EXPECT_EQ(choose_zstd_decoder(ZstdRequest::gpu, true, small(1), 132, 16), ZstdDecoder::gpu);
  EXPECT_EQ(choose_zstd_decoder(ZstdRequest::cpu, true, large(100000), 132, 16), ZstdDecoder::cpu);
  // Without the GPU decoder in the build, everything decodes on CPU threads.
  EXPECT_EQ(choose_zstd_decoder(ZstdRequest::gpu, false, small(100000), 132, 16), ZstdDecoder::cpu);
  EXPECT_EQ(choose_zstd_decoder(ZstdRequest::auto_, false, large(100000), 132, 16), ZstdDecoder::cpu);
}

TEST(DecoderChoice, DescriptionNamesTheRule) {
  const std::string threshold = ">= " + std::to_string(gpu_zstd_frame_threshold(132, 16)) + " frames";
  EXPECT_NE(describe_zstd_choice(ZstdRequest::auto_, true, 132, 16).find(threshold), std::string::npos);
  EXPECT_NE(describe_zstd_choice(ZstdRequest::auto_, true, 132, 16).find("frames of >= 512 KiB"), std::string::npos);
  EXPECT_NE(describe_zstd_choice(ZstdRequest::cpu, true, 132, 16).find("zstd_decoder=cpu"), std::string::npos);
  EXPECT_NE(describe_zstd_choice(ZstdRequest::gpu, false, 132, 16).find("not built"), std::string::npos);
}

// A full batch of the CLI store's 16.6 MB frames at the default scratch
// is one wave of the GPU decoder's temp (kGpuZstdTempPerScratch): a change
// to the decoder's scratch a chunk that crosses it fails here, not in the
// read's benchmark (two waves cost that read 15%).
TEST(DecoderChoice, AFullBatchOfLargeFramesIsOneWaveOfTheDecodersTemp) {
  const std::uint64_t frame = 16'600'000, scratch = ::zarrgpu::gpu::StagingConfig{}.scratch_bytes;
  const zstd::gpu::WaveLayout layout(frame);
  const std::uint64_t batch = scratch / frame;
  ASSERT_GE(batch, 1u);
  EXPECT_EQ(layout.wave_chunks(kGpuZstdTempPerScratch * scratch, batch), batch);
}

}  // namespace
}  // namespace zarrgpu::engine::device_read
