// Diagnostic (host only, not a benchmark of record): how many blocks libzstd
// writes a chunk of the bench's ERA5-like data (bench_data.hpp), with its
// default parameters (the block splitter on from level 16's btopt up), and
// how many of them are compressed: what share of the blocks is a chunk's
// first block, whose phase C could run in B3 (NOTES v24, branch
// next/b3-resolve).
//
//   g++ -O2 -std=c++20 -Isrc -Ibench/zstd_gpu bench/zstd_gpu/block_probe.cpp -o /tmp/block_probe -lzstd -lpthread
//   /tmp/block_probe [level 19] [chunk KiB 64] [chunks 32]
//
// Level 19 (2026-11-25): 64 KiB 1.00 block a chunk (32 of 32 chunks one
// compressed block); 256 KiB 6.06 (4-8); 1 MiB 18.25 (16-22).
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_data.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame_walk.hpp"

int main(int argc, char** argv) {
  const int level = argc > 1 ? atoi(argv[1]) : 19;
  const size_t kib = argc > 2 ? atoi(argv[2]) : 64;
  const size_t chunks = argc > 3 ? atoi(argv[3]) : 32;
  const size_t cb = kib * 1024, skip = 1024 * 1024;  // start a bit into the field, as d2_probe
  const auto data = zarrgpu::bench::make_era5_like(skip + cb * chunks + 1024 * 1024, 2);
  std::vector<unsigned char> out(ZSTD_compressBound(cb));
  size_t per_count[64] = {}, blocks = 0, compressed = 0;
  using namespace zarrgpu::zstd;
  const ChunkLimits limits = chunk_limits(cb, 0xFFFFFFFFu, 0xFFFFFFFFu);
  for (size_t c = 0; c < chunks; ++c) {
    const size_t n = ZSTD_compress(out.data(), out.size(), data.data() + skip + c * cb, cb, level);
    if (ZSTD_isError(n)) { std::printf("error: %s\n", ZSTD_getErrorName(n)); return 1; }
    // The decoder's own phase A (the GPU's walk): every block's record.
    ChunkPlan plan{};
    walk_chunk(out.data(), n, limits, &plan, nullptr, nullptr);
    std::vector<FrameRecord> frames(plan.frame_count);
    std::vector<BlockRecord> records(plan.block_count);
    walk_chunk(out.data(), n, limits, &plan, frames.data(), records.data());
    if (plan.walk_status != Status::ok) { std::printf("chunk %zu: the walk failed\n", c); return 1; }
    const size_t k = records.size();
    for (const BlockRecord& b : records) compressed += b.type == BlockType::compressed;
    ++per_count[k < 63 ? k : 63];
    blocks += k;
  }
  std::printf("level %d, %zu KiB chunks: %.2f blocks a chunk, %zu of %zu compressed; chunks by block count:", level,
              kib, static_cast<double>(blocks) / chunks, compressed, blocks);
  for (int i = 0; i < 64; ++i) {
    if (per_count[i]) std::printf(" %d:%zu", i, per_count[i]);
  }
  std::printf("\n");
}
