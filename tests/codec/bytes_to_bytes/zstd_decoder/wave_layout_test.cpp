// The GPU decoder's wave arithmetic (gpu/wave_layout.hpp), on the host: how
// many chunks a temp holds and how a batch is cut into waves. Each of these
// cost measurable GPU time when it was wrong (bench/zstd_gpu/NOTES.md, v8).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "codec/bytes_to_bytes/zstd/gpu/wave_layout.hpp"

namespace zarrgpu::zstd::gpu {
namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;
// Chunk bounds of the Zstd bench, of small chunks, and of the CLI's ERA5 time step.
constexpr uint64_t kChunkBytes[] = {4 * kKiB, 64 * kKiB, 256 * kKiB, kMiB, 4 * kMiB, 721 * 1440 * 4 * 4};

// A temp asked for n chunks (get_decompress_temp_size: bytes(n)) holds n:
// wave_chunks() once came out one short, the padding of each array being
// counted once per chunk.
TEST(ZstdWaveLayout, ATempSizedForNChunksHoldsN) {
  for (const uint64_t chunk : kChunkBytes) {
    const WaveLayout layout(chunk);
    for (uint64_t n = 1; n <= 3000; n += (n < 64 ? 1 : 37)) {
      ASSERT_EQ(layout.wave_chunks(layout.bytes(n), n), n) << "chunk " << chunk << ", n " << n;
      ASSERT_EQ(layout.wave_chunks(layout.bytes(n), n + 100), n) << "chunk " << chunk << ", n " << n;
      ASSERT_EQ(layout.wave_chunks(layout.bytes(n) - 1, n + 100), n - 1) << "chunk " << chunk << ", n " << n;
    }
  }
}

// wave_chunks() is the most chunks whose bytes fit, for any temp.
TEST(ZstdWaveLayout, WaveChunksIsTheMostThatFit) {
  for (const uint64_t chunk : kChunkBytes) {
    const WaveLayout layout(chunk);
    for (uint64_t temp = 0; temp < 64 * layout.bytes(1); temp += layout.bytes(1) / 7 + 1) {
      const uint64_t w = layout.wave_chunks(temp, 1000);
      if (w > 0) {
        ASSERT_LE(layout.bytes(w), temp);
      }
      ASSERT_GT(layout.bytes(w + 1), temp) << "chunk " << chunk << ", temp " << temp;
    }
  }
}

// Waves never exceed the room and cover the batch in as few waves as the
// room allows; of the sizes that do, theirs take the fewest B2/B3 rounds
// (checked against every size), and they are equal where that ties.
TEST(ZstdWaveLayout, WavesAreFewestThenFewestRounds) {
  for (const uint64_t chunk : kChunkBytes) {
    const uint64_t per_chunk = (chunk + 128 * kKiB - 1) / (128 * kKiB);
    for (const uint64_t round : {uint64_t{0}, uint64_t{700}, uint64_t{5544}, uint64_t{6336}, uint64_t{9000}}) {
      const uint64_t rc = round / per_chunk;
      auto rounds = [rc](uint64_t n, uint64_t w) {
        return n / w * ((w + rc - 1) / rc) + (n % w + rc - 1) / rc;
      };
      for (uint64_t n = 2; n <= 5000; n = n * 3 / 2 + 1) {
        for (uint64_t room = 1; room < n; room = room * 2 + 1) {
          const std::string where = "chunk " + std::to_string(chunk) + ", round " + std::to_string(round) + ", n " +
                                    std::to_string(n) + ", room " + std::to_string(room);
          const uint64_t w = cut_waves(room, n, chunk, round);
          ASSERT_GE(w, 1u);
          ASSERT_LE(w, room) << where;
          const uint64_t fewest = (n + room - 1) / room, equal = (n + fewest - 1) / fewest;
          EXPECT_EQ((n + w - 1) / w, fewest) << "more waves than the room needs: " << where;
          if (rc == 0) {
            EXPECT_EQ(w, equal) << where;
            continue;
          }
          uint64_t least = rounds(n, equal);
          for (uint64_t x = equal; x <= room; ++x) {
            if ((n + x - 1) / x == fewest && rounds(n, x) < least) least = rounds(n, x);
          }
          EXPECT_EQ(rounds(n, w), least) << "a size of as many waves takes fewer rounds: " << where;
          if (rounds(n, equal) == least) {
            EXPECT_EQ(w, equal) << "equal waves on a tie: " << where;
          }
        }
      }
    }
  }
  // The example of the rule: 16 chunks in a temp for 12 run as 8 + 8.
  EXPECT_EQ(cut_waves(12, 16, 16 * kMiB, 5544), 8u);
}

// The Zstd bench's 1 MiB rows: the default 8 GiB wave temp holds two rounds
// of the H200 (5,544 blocks in B2/B3, 8 blocks per chunk: 1,386 chunks).
// 16-byte granules once made each chunk's scratch 2% larger, the temp then
// held one round per wave, and level 3 fell from 74.5 to 68.7 GB/s. (The
// index's match-end bits, +4%, came with BlockEntropy's FSE tables packed,
// -3%.) A layout change that trips this should say what it costs on the GPU.
TEST(ZstdWaveLayout, TheBenchsMiBChunksRunInTwoWaves) {
  const WaveLayout layout(kMiB);
  const uint64_t room = layout.wave_chunks(BlockParallelPolicySm90::kWaveTempBytes, 2048);
  EXPECT_GE(room, 1386u);
  EXPECT_EQ(cut_waves(room, 2048, kMiB, 5544), 1386u);
  // With B3's 13 lanes a round is 6,336 blocks (792 chunks): two whole
  // rounds no longer fit. A round a wave would take three waves, two equal
  // ones four rounds; the room filled takes two waves and three rounds.
  EXPECT_LT(room, 2u * 792u);
  EXPECT_EQ(cut_waves(room, 2048, kMiB, 6336), room);
}

// Two lanes of waves (plan_waves): each lane's scratch is bytes(wave), lane
// 1's from bytes(wave) on, so two of them must fit the temp; a temp whose
// half holds no chunk, or a batch that fits one wave, runs one lane; one
// lane cuts as cut_waves() in the whole temp.
TEST(ZstdWaveLayout, TwoLanesSplitTheTempAndFitIt) {
  for (const uint64_t chunk : kChunkBytes) {
    const WaveLayout layout(chunk);
    for (const uint64_t held : {1u, 2u, 3u, 7u, 16u, 101u, 1500u}) {
      const uint64_t temp = layout.bytes(held);
      for (const uint64_t n : {held, held + 1, 2 * held + 1, 10 * held}) {
        const std::string where = "chunk " + std::to_string(chunk) + ", temp for " + std::to_string(held) +
                                  ", " + std::to_string(n) + " chunks";
        const WavePlan one = plan_waves(layout, temp, n, 6336, false);
        const WavePlan two = plan_waves(layout, temp, n, 6336, true);
        EXPECT_EQ(one.lanes, 1u) << where;
        EXPECT_LE(layout.bytes(one.wave), temp) << where;
        if (n <= held) {
          EXPECT_EQ(two.lanes, 1u) << where;
          EXPECT_EQ(two.wave, n) << where;
          EXPECT_EQ(one.wave, n) << where;
          continue;
        }
        EXPECT_EQ(one.wave, cut_waves(held, n, chunk, 6336)) << where;
        ASSERT_GE(two.wave, 1u) << where;
        if (layout.wave_chunks(temp / 2, n) == 0) {
          EXPECT_EQ(two.lanes, 1u) << where;
          EXPECT_EQ(two.wave, one.wave) << where;
        } else {
          EXPECT_EQ(two.lanes, 2u) << where;
          EXPECT_LE(2 * layout.bytes(two.wave), temp) << where;
          EXPECT_LE(two.wave, layout.wave_chunks(temp / 2, n)) << where;
        }
      }
    }
  }
  // The bench's 2 GiB of 1 MiB chunks in the 8 GiB temp: two waves on one
  // lane, three of 683 chunks on two.
  const WaveLayout mib(kMiB);
  const uint64_t temp = mib.bytes(mib.wave_chunks(BlockParallelPolicySm90::kWaveTempBytes, 2048));
  const WavePlan two = plan_waves(mib, temp, 2048, 6336, true);
  EXPECT_EQ(two.lanes, 2u);
  EXPECT_EQ(two.wave, 683u);
  EXPECT_EQ(plan_waves(mib, temp, 2048, 6336, false).wave, mib.wave_chunks(temp, 2048));
}

// The default scratch a wave may take: 16 GiB where each chunk's serial
// chains are long (chunk bounds over 256 KiB), 8 GiB below. The bench's
// 2 GiB of 1 MiB (and of 4 MiB) chunks then run in one wave (one serial
// tail, not three or two), in under 12 GiB of temp.
TEST(ZstdWaveLayout, LongChainsGetOneWaveForTheBenchsMiBChunks) {
  using P = BlockParallelPolicySm90;
  EXPECT_EQ(default_wave_temp_bytes(64 * 1024), P::kWaveTempBytes);
  EXPECT_EQ(default_wave_temp_bytes(256 * 1024), P::kWaveTempBytes);
  EXPECT_EQ(default_wave_temp_bytes(256 * 1024 + 1), P::kLongChainWaveTempBytes);
  EXPECT_EQ(default_wave_temp_bytes(kMiB), P::kLongChainWaveTempBytes);
  EXPECT_EQ(default_wave_temp_bytes(4 * kMiB), P::kLongChainWaveTempBytes);
  EXPECT_GT(P::kLongChainWaveTempBytes, P::kWaveTempBytes);
  const WaveLayout mib(kMiB);
  EXPECT_EQ(mib.wave_chunks(default_wave_temp_bytes(kMiB), 2048), 2048u);
  EXPECT_LT(mib.bytes(2048), uint64_t{12} << 30);
  EXPECT_LT(mib.wave_chunks(P::kWaveTempBytes, 2048), 2048u);
  const WaveLayout four(4 * kMiB);
  EXPECT_EQ(four.wave_chunks(default_wave_temp_bytes(4 * kMiB), 512), 512u);
  EXPECT_LT(four.bytes(512), uint64_t{12} << 30);
}

// B3's order buckets: more sequences never come later, a block without
// sequences comes last, and buckets are half an octave wide (level 19's
// blocks of 2,000 to 32,000 sequences spread over eight of them).
TEST(ZstdWaveLayout, OrderBucketsPutTheLongestChainsFirst) {
  EXPECT_EQ(order_bucket(0), kOrderBuckets - 1);
  uint32_t last = order_bucket(1);
  EXPECT_LT(last, kOrderBuckets - 1);
  for (uint32_t n = 2; n <= 1u << 20; n += 1 + n / 64) {
    const uint32_t key = order_bucket(n);
    ASSERT_LE(key, last) << n;
    ASSERT_LT(key, kOrderBuckets - 1) << n;
    last = key;
  }
  EXPECT_EQ(order_bucket(1u << 20), 0u);
  EXPECT_EQ(order_bucket(4096), order_bucket(6143));
  EXPECT_EQ(order_bucket(6144), order_bucket(8191));
  EXPECT_EQ(order_bucket(4096), order_bucket(6144) + 1);
  EXPECT_EQ(order_bucket(2048), order_bucket(32768) + 8);
}

}  // namespace
}  // namespace zarrgpu::zstd::gpu
