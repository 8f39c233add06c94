// Differential tests: chunks written by c-blosc (every codec, level, shuffle
// mode, typesize 1-16, block size, split mode, chunk sizes 1 KiB - 16 MiB,
// memcpyed chunks) decode to the original bytes and to what c-blosc gives.
#include <gtest/gtest.h>

#include "chunk_corpus.hpp"

namespace zarrgpu::blosc::testing {
namespace {

const char* const kCodecs[] = {"blosclz", "lz4", "lz4hc", "zstd", "zlib"};
const int kShuffles[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};

// Returns the chunk's header flags, for tests that count what they covered.
uint8_t check_round_trip(const Bytes& data, const ChunkParams& p, const std::string& what) {
  const Bytes chunk = compress_chunk(data, p);
  Bytes ref;
  EXPECT_EQ(reference_decode(chunk, data.size(), &ref), static_cast<long>(data.size())) << what << " " << p.name();
  const Guarded g = guarded_decode(chunk, data.size());
  EXPECT_EQ(g.status, Status::ok) << what << " " << p.name() << ": " << status_name(g.status) << " inner "
                                  << g.inner_status;
  EXPECT_TRUE(g.guard_ok) << what << " " << p.name();
  EXPECT_TRUE(g.out == data) << what << " " << p.name();
  return chunk[2];
}

TEST(BloscDifferential, EveryCodecShuffleAndTypesize) {
  int chunks = 0;
  uint64_t seed = 1;
  for (const char* cname : kCodecs)
    for (const int shuffle : kShuffles)
      for (size_t typesize = 1; typesize <= 16; ++typesize)
        for (const size_t n : {size_t{1000}, size_t{70001}}) {
          const DataKind kind = typesize % 2 ? DataKind::mixed : DataKind::float_field;
          ChunkParams p;
          p.cname = cname;
          p.shuffle = shuffle;
          p.typesize = typesize;
          check_round_trip(make_data(kind, n, seed++), p, std::to_string(n) + " B");
          ++chunks;
        }
  EXPECT_EQ(chunks, 5 * 3 * 16 * 2);
}

TEST(BloscDifferential, EveryClevel) {
  uint64_t seed = 100;
  for (const char* cname : kCodecs)
    for (int clevel = 0; clevel <= 9; ++clevel)
      for (const int shuffle : kShuffles) {
        ChunkParams p;
        p.cname = cname;
        p.clevel = clevel;
        p.shuffle = shuffle;
        check_round_trip(make_data(DataKind::float_field, 200000, seed++), p, "200000 B");
      }
}

TEST(BloscDifferential, BlockAndChunkSizes1KiBTo16MiB) {
  const size_t chunk_sizes[] = {1024, 4096 + 3, 65536, size_t{1} << 20, (size_t{4} << 20) + 5, size_t{16} << 20};
  const size_t block_sizes[] = {0, 1024, 4096, 32768, 262144, size_t{1} << 20, size_t{16} << 20};
  uint64_t seed = 200;
  for (const size_t n : chunk_sizes)
    for (const size_t bs : block_sizes) {
      if (bs > n) continue;
      for (const char* cname : {"lz4", "blosclz", "zstd"})
        for (const int shuffle : {BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
          if (n >= (size_t{16} << 20) && (bs != 0 && bs != (size_t{1} << 20))) continue;  // keep the run short
          ChunkParams p;
          p.cname = cname;
          p.shuffle = shuffle;
          p.blocksize = bs;
          check_round_trip(make_data(DataKind::float_field, n, seed++), p, std::to_string(n) + " B");
        }
    }
}

// Split streams (one per byte of the type) and unsplit blocks, for every
// codec: c-blosc's split modes decide which the chunk holds.
TEST(BloscDifferential, SplitModes) {
  uint64_t seed = 300;
  for (const int mode : {BLOSC_ALWAYS_SPLIT, BLOSC_NEVER_SPLIT, BLOSC_AUTO_SPLIT, BLOSC_FORWARD_COMPAT_SPLIT})
    for (const char* cname : kCodecs)
      for (const size_t typesize : {size_t{2}, size_t{4}, size_t{8}, size_t{16}, size_t{17}}) {
        ChunkParams p;
        p.cname = cname;
        p.typesize = typesize;
        p.splitmode = mode;
        const Bytes data = make_data(DataKind::skewed, 100000, seed++);
        if (mode == BLOSC_ALWAYS_SPLIT && typesize > kMaxSplits) {
          // c-blosc then writes typesize streams a block, but its decoder (and
          // the format: "typesize <= MAX_SPLITS") reads one: it cannot read
          // such a chunk back, and neither do we.
          const Bytes chunk = compress_chunk(data, p);
          Bytes ref;
          EXPECT_EQ(reference_decode(chunk, data.size(), &ref), -1) << p.name();
          EXPECT_NE(guarded_decode(chunk, data.size()).status, Status::ok) << p.name();
          continue;
        }
        check_round_trip(data, p, "100000 B");
      }
  blosc_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
}

TEST(BloscDifferential, MemcpyedChunks) {
  int memcpyed = 0;
  uint64_t seed = 400;
  for (const char* cname : kCodecs)
    for (const size_t n : {size_t{100}, size_t{5000}, size_t{300001}}) {
      ChunkParams p;
      p.cname = cname;
      p.clevel = 0;  // c-blosc stores the data as is
      memcpyed += (check_round_trip(make_data(DataKind::text, n, seed++), p, "clevel 0") & kFlagMemcpyed) != 0;
      p.clevel = 9;  // incompressible data: stored as is too
      memcpyed += (check_round_trip(make_data(DataKind::random, n, seed++), p, "random") & kFlagMemcpyed) != 0;
    }
  EXPECT_GE(memcpyed, 15);
}

TEST(BloscDifferential, TinyAndEmptyChunks) {
  for (size_t n = 0; n <= 40; ++n)
    for (const char* cname : kCodecs) {
      ChunkParams p;
      p.cname = cname;
      p.typesize = 1;
      check_round_trip(make_data(DataKind::text, n, n), p, std::to_string(n) + " B");
    }
}

}  // namespace
}  // namespace zarrgpu::blosc::testing
