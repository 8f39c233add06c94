// Differential test: frames written by libzstd with many parameter sets are
// decoded by zarrgpu's decoder (host build of the GPU code) and by libzstd;
// both must give back the original bytes. A census shows which block types
// and entropy modes were exercised, and the suite fails if one is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "codec/bytes_to_bytes/zstd/decoder/decode_frames.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/decode_frames_block_parallel.hpp"
#include "frame_census.hpp"
#include "frame_corpus.hpp"

namespace zarrgpu::zstd::testing {
namespace {

Census& global_census() {
  static Census c;
  return c;
}

// Decodes `frame` (whose content is `original`) with capacity exactly the
// content size and with slack; checks ours against the original and libzstd.
void expect_round_trip(const Bytes& frame, const Bytes& original, const std::string& what) {
  Census c;
  take_census(frame.data(), frame.size(), &c);
  global_census().add(c);

  Bytes ref;
  ASSERT_TRUE(reference_decode(frame, &ref, original.size() + 64)) << what;
  ASSERT_EQ(ref, original) << what;

  for (size_t slack : {size_t{0}, size_t{129}}) {
    Bytes out(original.size() + slack + 16, 0xA5);
    size_t n = 0;
    const Status st = decode_frames(frame.data(), frame.size(), out.data(), original.size() + slack, &n);
    ASSERT_EQ(st, Status::ok) << status_name(st) << " " << what << " slack=" << slack;
    ASSERT_EQ(n, original.size()) << what;
    ASSERT_TRUE(std::equal(original.begin(), original.end(), out.begin())) << what;
    for (size_t i = original.size() + slack; i < out.size(); ++i) {
      ASSERT_EQ(out[i], 0xA5) << "write past capacity " << what;
    }
    // The block-parallel decoder (the walk to execution), which must not fall back to the serial
    // one on valid frames.
    Bytes bp(original.size() + slack + 16, 0xA5);
    BlockParallelStats stats;
    const Status bp_st =
        decode_frames_block_parallel(frame.data(), frame.size(), bp.data(), original.size() + slack, &n, {}, &stats);
    ASSERT_EQ(bp_st, Status::ok) << "block-parallel " << status_name(bp_st) << " " << what << " slack=" << slack;
    ASSERT_FALSE(stats.fell_back) << what;
    ASSERT_EQ(n, original.size()) << what;
    ASSERT_TRUE(std::equal(original.begin(), original.end(), bp.begin())) << "block-parallel " << what;
    for (size_t i = original.size() + slack; i < bp.size(); ++i) {
      ASSERT_EQ(bp[i], 0xA5) << "block-parallel write past capacity " << what;
    }
  }
}

void round_trip(DataKind kind, size_t size, const FrameParams& fp, uint64_t seed) {
  const Bytes data = make_data(kind, size, seed);
  const Bytes frame = compress(data, fp);
  expect_round_trip(frame, data,
                    std::string(data_kind_name(kind)) + " size=" + std::to_string(size) + " " + fp.describe());
}

constexpr DataKind kKinds[] = {DataKind::random,     DataKind::zeros,  DataKind::text, DataKind::float_field,
                               DataKind::repetitive, DataKind::skewed, DataKind::mixed};

TEST(ZstdDifferential, EveryLevel) {
  for (int level = -7; level <= 22; ++level) {
    if (level == 0) continue;
    for (DataKind kind : kKinds) {
      // High levels are slow to compress: keep their inputs smaller.
      const size_t sizes[] = {1, 777, size_t(level >= 18 ? 40000 : 150000)};
      for (size_t size : sizes) {
        FrameParams fp;
        fp.level = level;
        fp.checksum = (level & 1) != 0;
        fp.content_size = level % 3 != 0;
        round_trip(kind, size, fp, 1000 + level * 31 + static_cast<int>(kind));
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ZstdDifferential, WindowSizes) {
  // 1 KiB to 8 MiB windows; inputs a bit over the window so that matches reach its edge.
  for (int wlog = 10; wlog <= 23; ++wlog) {
    for (DataKind kind : {DataKind::text, DataKind::repetitive, DataKind::mixed, DataKind::float_field}) {
      FrameParams fp;
      fp.level = (wlog % 3 == 0) ? 1 : (wlog % 3 == 1) ? 3 : 7;
      fp.window_log = wlog;
      fp.content_size = (wlog & 1) == 0;
      fp.checksum = true;
      const size_t size = std::min<size_t>((size_t{3} << wlog) / 2 + 1234, 3u << 20);
      round_trip(kind, size, fp, 77 + wlog);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(ZstdDifferential, ManyBlocksAndRepeatedTables) {
  // Flushes end blocks early: later blocks reuse the previous Huffman and FSE
  // tables (treeless literals, repeat mode) and repeat offsets cross blocks.
  for (size_t flush : {size_t{37}, size_t{200}, size_t{1000}, size_t{4096}, size_t{20000}}) {
    for (DataKind kind : kKinds) {
      for (int level : {-1, 1, 3, 9, 19}) {
        FrameParams fp;
        fp.level = level;
        fp.flush_every = flush;
        fp.content_size = flush != 200;
        fp.checksum = level == 3;
        round_trip(kind, flush < 1000 ? 30000 : 200000, fp, flush * 7 + level);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ZstdDifferential, StreamedWithoutContentSize) {
  // What TensorStore writes: no Frame_Content_Size, the capacity is the bound.
  for (DataKind kind : kKinds) {
    for (int level : {1, 3, 5, 12}) {
      FrameParams fp;
      fp.level = level;
      fp.streamed = true;
      fp.content_size = false;
      round_trip(kind, 300000 + level, fp, 5 + level);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(ZstdDifferential, LiteralModesAndSmallBlocks) {
  for (DataKind kind : kKinds) {
    for (int lit : {1, 2}) {  // ZSTD_ps_enable (Huffman forced), ZSTD_ps_disable (raw literals)
      for (size_t tcb : {size_t{0}, size_t{1340}, size_t{5000}}) {
        FrameParams fp;
        fp.level = 5;
        fp.literal_mode = lit;
        fp.target_block = tcb;
        round_trip(kind, 100000, fp, lit * 13 + tcb);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ZstdDifferential, LongDistanceMatching) {
  // A random block repeated far apart: offsets of several MiB, windows of 2^24..2^28.
  Rng rng(99);
  Bytes block = make_data(DataKind::random, 3u << 20, 4);
  Bytes data = block;
  append_kind(data, DataKind::text, 1u << 20, rng);
  data.insert(data.end(), block.begin(), block.end());
  for (int wlog : {24, 27, 28}) {
    FrameParams fp;
    fp.level = 3;
    fp.window_log = wlog;
    fp.long_distance = true;
    fp.checksum = true;
    const Bytes frame = compress(data, fp);
    ASSERT_LT(frame.size(), data.size() * 3 / 4) << "expected long matches";
    expect_round_trip(frame, data, "ldm wlog=" + std::to_string(wlog));
  }
}

TEST(ZstdDifferential, ConcatenatedAndSkippableFrames) {
  Rng rng(2024);
  for (int chunk = 0; chunk < 200; ++chunk) {
    Bytes all_frames, all_data;
    const int parts = 1 + static_cast<int>(rng.below(5));
    for (int i = 0; i < parts; ++i) {
      if (rng.below(3) == 0) {
        const Bytes skip = skippable_frame(rng.below(16), rng.below(50), rng.next());
        all_frames.insert(all_frames.end(), skip.begin(), skip.end());
      }
      const auto kind = static_cast<DataKind>(rng.below(static_cast<uint32_t>(DataKind::count)));
      const Bytes data = make_data(kind, rng.below(3) == 0 ? rng.below(10) : rng.below(200000), rng.next());
      FrameParams fp;
      fp.level = static_cast<int>(rng.below(12)) - 2;
      if (fp.level == 0) fp.level = 1;
      fp.content_size = rng.below(2) == 0;
      fp.checksum = rng.below(2) == 0;
      const Bytes frame = compress(data, fp);
      all_frames.insert(all_frames.end(), frame.begin(), frame.end());
      all_data.insert(all_data.end(), data.begin(), data.end());
    }
    expect_round_trip(all_frames, all_data, "concatenated #" + std::to_string(chunk));
    if (HasFatalFailure()) return;
  }
}

// The parameter sampler shared by the sweep and the stand-alone census.
FrameParams random_params(Rng& rng) {
  FrameParams fp;
  fp.level = static_cast<int>(rng.below(30)) - 7;
  if (fp.level == 0) fp.level = 3;
  if (fp.level > 17 && rng.below(3) != 0) fp.level = 12;
  if (rng.below(3) == 0) fp.window_log = 10 + static_cast<int>(rng.below(8));
  fp.content_size = rng.below(2) == 0;
  fp.checksum = rng.below(2) == 0;
  if (rng.below(4) == 0) fp.flush_every = 16 + rng.below(3000);
  if (rng.below(6) == 0) fp.literal_mode = 1 + static_cast<int>(rng.below(2));
  if (rng.below(6) == 0) fp.target_block = 1340 + rng.below(4000);
  if (rng.below(5) == 0) fp.streamed = true;
  return fp;
}

TEST(ZstdDifferential, RandomParameterSweep) {
  // Thousands of small frames with random parameters.
  Rng rng(31337);
  for (int i = 0; i < 2500; ++i) {
    const FrameParams fp = random_params(rng);
    const auto kind = static_cast<DataKind>(rng.below(static_cast<uint32_t>(DataKind::count)));
    const size_t size = rng.below(4) == 0 ? rng.below(300) : rng.below(60000);
    round_trip(kind, size, fp, rng.next());
    if (HasFatalFailure()) return;
  }
}

TEST(ZstdDifferential, HandWrittenRawAndRleBlocks) {
  // Frames built by hand: raw and RLE blocks, single-segment and windowed headers.
  Rng rng(5);
  for (int t = 0; t < 100; ++t) {
    Bytes frame = {0x28, 0xB5, 0x2F, 0xFD};
    Bytes data;
    const int blocks = 1 + static_cast<int>(rng.below(6));
    std::vector<std::pair<int, size_t>> plan;
    size_t total = 0;
    for (int b = 0; b < blocks; ++b) {
      const int type = static_cast<int>(rng.below(2));
      const size_t n = rng.below(3) == 0 ? 0 : rng.below(kBlockSizeMax + 1);
      plan.emplace_back(type, n);
      total += n;
    }
    const bool single = total > 0 && rng.below(2) == 0;
    if (single) {
      frame.push_back(0xE0 | 0x20);  // 8-byte FCS, single segment
      for (int i = 0; i < 8; ++i) frame.push_back(static_cast<uint8_t>(uint64_t(total) >> (8 * i)));
    } else {
      frame.push_back(0x00);
      frame.push_back(static_cast<uint8_t>((17 - 10) << 3));  // 128 KiB window
    }
    for (int b = 0; b < blocks; ++b) {
      const auto [type, n] = plan[b];
      const uint32_t header = (b + 1 == blocks ? 1u : 0u) | (static_cast<uint32_t>(type) << 1) | (uint32_t(n) << 3);
      frame.push_back(header & 0xFF);
      frame.push_back((header >> 8) & 0xFF);
      frame.push_back((header >> 16) & 0xFF);
      if (type == 0) {
        const Bytes payload = make_data(DataKind::random, n, rng.next());
        frame.insert(frame.end(), payload.begin(), payload.end());
        data.insert(data.end(), payload.begin(), payload.end());
      } else {
        const uint8_t v = static_cast<uint8_t>(rng.next());
        frame.push_back(v);
        data.insert(data.end(), n, v);
      }
    }
    expect_round_trip(frame, data, "hand-written #" + std::to_string(t));
    if (HasFatalFailure()) return;
  }
}

TEST(ZstdDifferential, ZCoverageOfEveryMode) {
  // Runs last (alphabetical within the suite): every mode must have been seen.
  Census c = global_census();
  if (c.frames < 1000) {
    // Run alone (ctest runs one test per process): decode a census corpus here.
    Rng rng(31337);
    for (int i = 0; i < 700; ++i) {
      const FrameParams fp = random_params(rng);
      const auto kind = static_cast<DataKind>(rng.below(static_cast<uint32_t>(DataKind::count)));
      const size_t size = rng.below(4) == 0 ? rng.below(300) : rng.below(60000);
      round_trip(kind, size, fp, rng.next());
      if (HasFatalFailure()) return;
    }
    const Bytes data = make_data(DataKind::text, 5000, 1);
    Bytes chunk = skippable_frame(2, 10, 3);
    const Bytes frame = compress(data, FrameParams{});
    chunk.insert(chunk.end(), frame.begin(), frame.end());
    expect_round_trip(chunk, data, "skippable + frame");
    // One RLE block: Last_Block=1, Block_Type=1, Block_Size=100 -> 0x000323.
    const Bytes rle = {0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38, 0x23, 0x03, 0x00, 0x7A};
    expect_round_trip(rle, Bytes(100, 0x7A), "hand-written RLE block");
    // RLE literals: a second block whose literals are all 'x' between matches of the first block.
    Bytes pieces = make_data(DataKind::random, 100 * 40, 17);  // >= 63 literals: libzstd tries to compress them
    Bytes two_blocks = pieces;
    for (int i = 0; i < 100; ++i) {
      two_blocks.push_back('x');
      two_blocks.insert(two_blocks.end(), pieces.begin() + 40 * i, pieces.begin() + 40 * (i + 1));
    }
    FrameParams fp;
    fp.flush_every = pieces.size();
    expect_round_trip(compress(two_blocks, fp), two_blocks, "RLE literals");
    c = global_census();
  }
  std::printf("census:\n %s\n", c.str().c_str());
  EXPECT_GT(c.skippable, 0u);
  EXPECT_GT(c.no_content_size, 0u);
  EXPECT_GT(c.single_segment, 0u);
  EXPECT_GT(c.checksummed, 0u);
  for (int i = 0; i < 3; ++i) EXPECT_GT(c.block_types[i], 0u) << "block type " << i;
  for (int i = 0; i < 4; ++i) EXPECT_GT(c.literal_types[i], 0u) << "literals type " << i;
  EXPECT_GT(c.one_stream, 0u);
  EXPECT_GT(c.four_streams, 0u);
  EXPECT_GT(c.no_sequences, 0u);
  for (int code = 0; code < 3; ++code)
    for (int m = 0; m < 4; ++m) EXPECT_GT(c.table_modes[code][m], 0u) << "table " << code << " mode " << m;
}

}  // namespace
}  // namespace zarrgpu::zstd::testing
