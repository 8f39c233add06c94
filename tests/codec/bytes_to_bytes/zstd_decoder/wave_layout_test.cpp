// The GPU decoder's wave arithmetic (gpu/wave_layout.hpp), on the host: how
// many chunks a temp holds and how a batch is cut into waves. Each of these
// cost measurable GPU time when it was wrong (docs/zstd-gpu-decoder.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "codec/bytes_to_bytes/zstd/gpu/wave_layout.hpp"
#include "frame_corpus.hpp"

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
// room allows; of the sizes that do, theirs take the fewest Huffman decoding/sequence decoding rounds
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
}

// The default scratch a wave may take: more where each chunk's serial
// chains are long (chunk bounds over kLongChainMinChunkBytes), so that a
// batch of such chunks runs in fewer waves, each ending in one serial tail.
TEST(ZstdWaveLayout, LongChainsGetTheLargerWaveTemp) {
  using P = BlockParallelPolicySm90;
  EXPECT_GT(P::kLongChainWaveTempBytes, P::kWaveTempBytes);
  for (const uint64_t chunk : kChunkBytes) {
    const uint64_t expected = chunk > P::kLongChainMinChunkBytes ? P::kLongChainWaveTempBytes : P::kWaveTempBytes;
    EXPECT_EQ(default_wave_temp_bytes(chunk), expected) << "chunk " << chunk;
    // Either temp holds at least one chunk: a wave is never empty.
    EXPECT_GE(WaveLayout(chunk).wave_chunks(default_wave_temp_bytes(chunk), 1), 1u) << "chunk " << chunk;
  }
  EXPECT_EQ(default_wave_temp_bytes(P::kLongChainMinChunkBytes), P::kWaveTempBytes);
  EXPECT_EQ(default_wave_temp_bytes(P::kLongChainMinChunkBytes + 1), P::kLongChainWaveTempBytes);
}

// Sequence decoding's order buckets: more sequences never come later, a block without
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

// measure_chunk_needs: the walk's own counts of a chunk's Huffman literals
// and sequences, never more than the worst case of its chunk bound; a wave
// laid out for them is smaller than the worst case's for compressible data
// and never larger for any needs; any prefix of a frame (a truncated chunk)
// is measured without reading past it.
TEST(ZstdWaveLayout, ScratchLaidOutForMeasuredNeeds) {
  using namespace zarrgpu::zstd::testing;
  for (const DataKind kind : {DataKind::float_field, DataKind::text, DataKind::mixed, DataKind::random}) {
    for (const int level : {1, 3, 9}) {
      const Bytes data = make_data(kind, 1 << 20, 7 + level);
      FrameParams fp;
      fp.level = level;
      const Bytes frame = compress(data, fp);
      const WaveLayout worst(data.size());
      const ChunkNeeds needs = measure_chunk_needs(frame.data(), frame.size(), worst);
      ChunkPlan plan;
      walk_chunk(frame.data(), frame.size(), chunk_limits(data.size(), worst.max_frames, worst.max_blocks), &plan,
                 nullptr, nullptr);
      const std::string where = std::string(data_kind_name(kind)) + " level " + std::to_string(level);
      ASSERT_EQ(plan.walk_status, Status::ok) << where;
      EXPECT_EQ(needs.literal_bytes, plan.literals_bytes) << where;
      EXPECT_EQ(needs.sequences, plan.triples) << where;
      EXPECT_LE(needs.literal_bytes, worst.literals_per_chunk) << where;
      EXPECT_LE(needs.sequences, worst.triples_per_chunk) << where;
      const WaveLayout measured(data.size(), needs);
      EXPECT_GE(measured.literals_per_chunk, needs.literal_bytes) << where;
      EXPECT_GE(measured.triples_per_chunk, needs.sequences) << where;
      for (const uint64_t n : {1, 7, 64}) EXPECT_LE(measured.bytes(n), worst.bytes(n)) << where;
      if (kind != DataKind::random) EXPECT_LT(measured.bytes(8), worst.bytes(8) / 2) << where;
      for (size_t cut = 0; cut < frame.size(); cut += 1 + cut / 3) {
        const Bytes prefix(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(cut));
        const ChunkNeeds part = measure_chunk_needs(prefix.data(), prefix.size(), worst);
        ASSERT_LE(part.literal_bytes, needs.literal_bytes) << where << " cut " << cut;
        ASSERT_LE(part.sequences, needs.sequences) << where << " cut " << cut;
      }
    }
  }
  const WaveLayout worst(kMiB);
  const WaveLayout beyond(kMiB, ChunkNeeds{10 * kMiB, 10 * kMiB});
  EXPECT_EQ(beyond.bytes(9), worst.bytes(9));
}

}  // namespace
}  // namespace zarrgpu::zstd::gpu
