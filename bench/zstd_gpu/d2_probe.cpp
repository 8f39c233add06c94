// Diagnostic (host only, not a benchmark of record): what D2 by chunk's
// batches read (decoder/block_execution.hpp's execute_chunk_matches), on
// the bench's ERA5-like chunks. libzstd's own sequences for each chunk
// (ZSTD_generateSequences, with the block splitter off: with it on, libzstd
// 1.5.4 returns the sequences of its trial passes too, 3.5x the chunk) are
// cut into batches of N as the GPU cuts them; printed: sequences and
// batches a chunk, the share of short matches a rank copies itself and of
// those pass 2 runs, and how far before its batch each source lies.
//
//   g++ -O2 -std=c++20 -Ibench/zstd_gpu bench/zstd_gpu/d2_probe.cpp -o /tmp/d2_probe -lzstd -lpthread
//   /tmp/d2_probe [level 19] [chunk KiB 64] [chunks 16] [batch N: 32 up to 256 KiB, else 64]
//
// Level 19 (2026-11-25): 64 KiB 7,140 sequences a chunk, 224 batches of 32;
// 1 MiB 249,562 and 3,900 batches of 64; 84-86% short matches at 256 KiB
// and 1 MiB, their sources 512 B-32 KiB back (2 KiB: 43% at 1 MiB); pass
// 2's bytes read the batch itself (99.9%).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include "bench_data.hpp"
int main(int argc, char** argv) {
  int level = argc > 1 ? atoi(argv[1]) : 19;
  size_t kib = argc > 2 ? atoi(argv[2]) : 64;
  size_t chunks = argc > 3 ? atoi(argv[3]) : 16;
  unsigned N = argc > 4 ? atoi(argv[4]) : (kib <= 256 ? 32 : 64);
  size_t cb = kib * 1024;
  auto data = zarrgpu::bench::make_era5_like(cb * chunks + 4 * 1024 * 1024, 2);
  const size_t skip = 1024 * 1024;  // start a bit into the field
  std::vector<ZSTD_Sequence> seqs(cb);
  const uint64_t lim[] = {32, 128, 512, 2048, 8192, 32768, 1ull << 40};
  uint64_t short_d[7] = {}, long_d[7] = {}, nshort = 0, nlisted = 0, listed_bytes = 0, in_batch_bytes = 0, nseq = 0,
           batches = 0, max_batches = 0, offs[7] = {};
  uint64_t pass2_rounds = 0;
  for (size_t c = 0; c < chunks; ++c) {
    ZSTD_CCtx* z = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, level); ZSTD_CCtx_setParameter(z, ZSTD_c_useBlockSplitter, ZSTD_ps_disable);
    size_t n = ZSTD_generateSequences(z, seqs.data(), seqs.size(), data.data() + skip + c * cb, cb);
    ZSTD_freeCCtx(z);
    if (ZSTD_isError(n)) { printf("err %s\n", ZSTD_getErrorName(n)); return 1; }
    // drop the block delimiters (offset 0, matchLength 0) except as literals
    std::vector<ZSTD_Sequence> s;
    uint32_t carry = 0;
    for (size_t i = 0; i < n; ++i) {
      if (seqs[i].matchLength == 0) { carry += seqs[i].litLength; continue; }
      ZSTD_Sequence q = seqs[i]; q.litLength += carry; carry = 0; s.push_back(q);
    }
    uint64_t pos = 0, nb = 0;
    for (size_t b = 0; b < s.size(); b += N, ++nb) {
      uint64_t base = pos, p = pos;
      uint64_t lb = 0;
      for (size_t i = b; i < std::min(s.size(), b + N); ++i) {
        p += s[i].litLength;
        uint64_t ms = p, ml = s[i].matchLength, off = s[i].offset;
        for (int k = 0; k < 7; ++k) if (off < lim[k]) { offs[k]++; break; }
        uint64_t src = ms - off;
        ++nseq;
        if (ml <= 8 && off >= ml && src + ml <= base) {
          ++nshort;
          uint64_t d = base - src;
          for (int k = 0; k < 7; ++k) if (d < lim[k]) { short_d[k]++; break; }
        } else {
          ++nlisted; listed_bytes += ml; lb += ml;
          for (uint64_t t = 0; t < ml; ++t) {
            uint64_t q = src + t;
            if (q >= base) { ++in_batch_bytes; continue; }
            uint64_t d = base - q;
            for (int k = 0; k < 7; ++k) if (d < lim[k]) { long_d[k]++; break; }
          }
        }
        p += ml;
      }
      pass2_rounds += (lb + 63) / 64;
      pos = p;
    }
    batches += nb; max_batches = std::max(max_batches, nb);
  }
  printf("level %d, %zu KiB chunks x %zu, batches of %u\n", level, kib, chunks, N);
  printf("sequences/chunk %.0f, batches/chunk %.0f (max %llu), bytes/seq %.2f\n", double(nseq) / chunks,
         double(batches) / chunks, (unsigned long long)max_batches, double(cb * chunks) / nseq);
  printf("short own-rank %.1f%%, listed %.1f%% (%.1f bytes each), listed bytes/batch %.1f, in-batch sources %.1f%% of listed bytes, pass-2 rounds(64B)/batch %.2f\n",
         100.0 * nshort / nseq, 100.0 * nlisted / nseq, double(listed_bytes) / std::max<uint64_t>(1, nlisted),
         double(listed_bytes) / batches, 100.0 * in_batch_bytes / std::max<uint64_t>(1, listed_bytes), double(pass2_rounds) / batches);
  const char* nm[] = {"<32", "<128", "<512", "<2K", "<8K", "<32K", ">=32K"};
  printf("distance base-src:     ");
  for (int k = 0; k < 7; ++k) printf("%8s", nm[k]);
  printf("\n  short matches (%%):  ");
  for (int k = 0; k < 7; ++k) printf("%8.1f", 100.0 * short_d[k] / std::max<uint64_t>(1, nshort));
  printf("\n  listed bytes before (%%):");
  uint64_t lt = 0; for (int k = 0; k < 7; ++k) lt += long_d[k];
  for (int k = 0; k < 7; ++k) printf("%8.1f", 100.0 * long_d[k] / std::max<uint64_t>(1, lt));
  printf("\n  offsets (%%):        ");
  for (int k = 0; k < 7; ++k) printf("%8.1f", 100.0 * offs[k] / std::max<uint64_t>(1, nseq));
  printf("\n");
}
