// Diagnostic (host only, not a benchmark of record): how many blocks libzstd
// writes a chunk of the bench's ERA5-like data (bench_data.hpp), with its
// default parameters (the block splitter on from level 16's btopt up), and
// how many of them are compressed: what share of the blocks is a chunk's
// first block, whose phase C could run in B3 (NOTES v24, branch
// next/b3-resolve).
//
//   g++ -O2 -std=c++20 -Ibench/zstd_gpu bench/zstd_gpu/block_probe.cpp -o /tmp/block_probe -lzstd -lpthread
//   /tmp/block_probe [level 19] [chunk KiB 64] [chunks 32]
//
// Level 19 (2026-11-25): 64 KiB 1.00 block a chunk (32 of 32 chunks one
// compressed block); 256 KiB 6.06 (4-8); 1 MiB 18.25 (16-22).
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_data.hpp"

int main(int argc, char** argv) {
  const int level = argc > 1 ? atoi(argv[1]) : 19;
  const size_t kib = argc > 2 ? atoi(argv[2]) : 64;
  const size_t chunks = argc > 3 ? atoi(argv[3]) : 32;
  const size_t cb = kib * 1024, skip = 1024 * 1024;  // start a bit into the field, as d2_probe
  const auto data = zarrgpu::bench::make_era5_like(skip + cb * chunks + 1024 * 1024, 2);
  std::vector<unsigned char> out(ZSTD_compressBound(cb));
  size_t per_count[64] = {}, blocks = 0, compressed = 0;
  for (size_t c = 0; c < chunks; ++c) {
    const size_t n = ZSTD_compress(out.data(), out.size(), data.data() + skip + c * cb, cb, level);
    if (ZSTD_isError(n)) { std::printf("error: %s\n", ZSTD_getErrorName(n)); return 1; }
    // Frame header (RFC 8878 §3.1.1.1), then the blocks' 3-byte headers.
    const unsigned char* p = out.data();
    size_t pos = 4;
    const unsigned fhd = p[pos++];
    const unsigned dict_id = fhd & 3u, single_segment = (fhd >> 5) & 1u, fcs = fhd >> 6;
    if (!single_segment) ++pos;  // Window_Descriptor
    pos += dict_id == 3 ? 4 : dict_id;
    pos += fcs == 0 ? single_segment : fcs == 1 ? 2 : fcs == 2 ? 4 : 8;
    size_t k = 0;
    for (bool last = false; !last && pos + 3 <= n; ++k) {
      const unsigned h = p[pos] | p[pos + 1] << 8 | p[pos + 2] << 16;
      pos += 3;
      last = h & 1u;
      const unsigned type = (h >> 1) & 3u, size = h >> 3;
      compressed += type == 2;
      pos += type == 1 ? 1 : size;
    }
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
