// GPU tests of the batched Blosc 1 decoder: c-blosc's chunks (BloscLZ and
// LZ4 streams, every shuffle mode, several typesizes, block sizes, memcpyed;
// and truncated or bit-flipped ones) decoded in one batch give the host
// decoder's status, size and bytes for every chunk, bit-exact with c-blosc on
// valid ones; Zstd and zlib chunks report host_only_codec; no write leaves
// a chunk's capacity. Skips without a GPU.
#include <gtest/gtest.h>

#include "chunk_corpus.hpp"
#include "codec/bytes_to_bytes/blosc/gpu/blosc_gpu.hpp"
#include "device_batch.hpp"

namespace zarrgpu::blosc::testing {
namespace {

using zarrgpu::testing::DeviceBatch;

TEST(BloscGpu, BatchMatchesTheHostDecoderAndCBlosc) {
  if (!zarrgpu::testing::gpu_present()) GTEST_SKIP() << "no GPU";
  std::vector<Bytes> data, chunks;
  std::vector<size_t> caps;
  std::vector<bool> device_codec;
  uint64_t seed = 1;
  for (const char* cname : {"blosclz", "lz4", "lz4hc", "zstd", "zlib"})
    for (const int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE})
      for (const size_t typesize : {size_t{1}, size_t{4}, size_t{8}, size_t{13}})
        for (const size_t blocksize : {size_t{0}, size_t{4096}})
          for (const int clevel : {0, 5}) {
            ChunkParams p;
            p.cname = cname;
            p.shuffle = shuffle;
            p.typesize = typesize;
            p.blocksize = blocksize;
            p.clevel = clevel;
            data.push_back(make_data(DataKind::float_field, 100000 + typesize, seed++));
            chunks.push_back(compress_chunk(data.back(), p));
            caps.push_back(data.back().size());
          }
  const size_t valid = chunks.size();
  Rng rng(5);
  for (size_t i = 0; i < valid; ++i) {
    chunks.push_back(Bytes(chunks[i].begin(), chunks[i].end() - 1));
    caps.push_back(caps[i]);
    Bytes f = chunks[i];
    f[rng.below(static_cast<uint32_t>(f.size()))] ^= static_cast<uint8_t>(1u << rng.below(8));
    chunks.push_back(f);
    caps.push_back(caps[i]);
  }
  size_t max_bytes = 0;
  for (size_t c : caps) max_bytes = std::max(max_bytes, c);
  size_t temp_bytes = 0;
  ASSERT_EQ(gpu::get_decompress_temp_size(chunks.size(), max_bytes, &temp_bytes), gpu::kSuccess);
  void* d_temp = nullptr;
  ASSERT_EQ(cudaMalloc(&d_temp, temp_bytes), cudaSuccess);
  DeviceBatch batch(chunks, caps);
  ASSERT_EQ(gpu::decompress_async(const_cast<const void* const*>(batch.d_in_ptrs), batch.d_in_sizes,
                                  batch.d_out_ptrs, batch.d_out_caps, batch.d_out_sizes, batch.d_statuses,
                                  batch.size(), max_bytes, d_temp, temp_bytes, nullptr),
            gpu::kSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const DeviceBatch::Results r = batch.results();
  cudaFree(d_temp);
  for (size_t i = 0; i < chunks.size(); ++i) {
    ASSERT_TRUE(zarrgpu::testing::guard_intact(r.outputs[i], caps[i])) << "chunk " << i;
    const Guarded host = guarded_decode(chunks[i], caps[i]);
    ChunkHeader h;
    const bool host_only = parse_chunk_header(chunks[i].data(), chunks[i].size(), caps[i], &h) == Status::ok &&
                           !h.memcpyed() && (h.codec() == Codec::zstd || h.codec() == Codec::zlib);
    if (host_only) {
      ASSERT_EQ(r.statuses[i], static_cast<uint32_t>(Status::host_only_codec)) << "chunk " << i;
      continue;
    }
    ASSERT_EQ(r.statuses[i], static_cast<uint32_t>(host.status)) << "chunk " << i;
    if (host.status != Status::ok) continue;
    ASSERT_EQ(r.sizes[i], host.out.size()) << "chunk " << i;
    ASSERT_TRUE(std::equal(host.out.begin(), host.out.end(), r.outputs[i].begin())) << "chunk " << i;
    if (i < valid) ASSERT_TRUE(host.out == data[i]) << "chunk " << i;
  }
}

}  // namespace
}  // namespace zarrgpu::blosc::testing
