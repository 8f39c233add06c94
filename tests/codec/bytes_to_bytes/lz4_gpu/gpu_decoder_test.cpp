// GPU tests of the batched LZ4 decoder: liblz4's blocks and numcodecs chunks
// (valid, truncated, bit-flipped) decoded in one batch give the host
// decoder's status, size and bytes for every chunk, bit-exact with liblz4 on
// valid ones, and no write leaves a chunk's capacity. Skips without a GPU.
#include <gtest/gtest.h>

#include "block_corpus.hpp"
#include "codec/bytes_to_bytes/lz4/gpu/lz4_gpu.hpp"
#include "device_batch.hpp"

namespace zarrgpu::lz4::testing {
namespace {

using zarrgpu::testing::DeviceBatch;

void check_batch(const std::vector<Bytes>& inputs, const std::vector<size_t>& caps, gpu::Framing framing,
                 const std::vector<const Bytes*>& expected) {
  DeviceBatch batch(inputs, caps);
  ASSERT_EQ(gpu::decompress_async(const_cast<const void* const*>(batch.d_in_ptrs), batch.d_in_sizes,
                                  batch.d_out_ptrs, batch.d_out_caps, batch.d_out_sizes, batch.d_statuses,
                                  batch.size(), framing, nullptr),
            gpu::kSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const DeviceBatch::Results r = batch.results();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Guarded host = framing == gpu::Framing::numcodecs ? guarded_frame(inputs[i], caps[i])
                                                            : guarded_block(inputs[i], caps[i]);
    ASSERT_TRUE(zarrgpu::testing::guard_intact(r.outputs[i], caps[i])) << "chunk " << i;
    ASSERT_EQ(r.statuses[i], static_cast<uint32_t>(host.status)) << "chunk " << i;
    if (host.status != Status::ok) continue;
    ASSERT_EQ(r.sizes[i], host.out.size()) << "chunk " << i;
    ASSERT_TRUE(std::equal(host.out.begin(), host.out.end(), r.outputs[i].begin())) << "chunk " << i;
    if (expected[i]) ASSERT_TRUE(host.out == *expected[i]) << "chunk " << i;
  }
}

TEST(Lz4Gpu, BatchMatchesTheHostDecoderAndLiblz4) {
  if (!zarrgpu::testing::gpu_present()) GTEST_SKIP() << "no GPU";
  std::vector<Bytes> data, blocks, frames;
  std::vector<size_t> caps;
  uint64_t seed = 1;
  for (const size_t n : {size_t{0}, size_t{1}, size_t{13}, size_t{1000}, size_t{65536}, size_t{1} << 20})
    for (int k = 0; k < static_cast<int>(DataKind::count); ++k)
      for (const Compressor c : {Compressor{Compressor::fast, 1}, Compressor{Compressor::hc, 9}}) {
        data.push_back(make_data(static_cast<DataKind>(k), n, seed++));
        blocks.push_back(compress_block(data.back(), c));
        frames.push_back(numcodecs_frame(data.back(), c));
        caps.push_back(n);
      }
  std::vector<const Bytes*> expected;
  for (const Bytes& d : data) expected.push_back(&d);
  // Corrupt variants: truncated by one byte and with one bit flipped.
  const size_t valid = blocks.size();
  Rng rng(3);
  for (size_t i = 0; i < valid; ++i) {
    if (blocks[i].size() > 1) {
      blocks.push_back(Bytes(blocks[i].begin(), blocks[i].end() - 1));
      frames.push_back(Bytes(frames[i].begin(), frames[i].end() - 1));
      caps.push_back(caps[i]);
      expected.push_back(nullptr);
    }
    Bytes b = blocks[i], f = frames[i];
    b[rng.below(static_cast<uint32_t>(b.size()))] ^= static_cast<uint8_t>(1u << rng.below(8));
    f[rng.below(static_cast<uint32_t>(f.size()))] ^= static_cast<uint8_t>(1u << rng.below(8));
    blocks.push_back(b);
    frames.push_back(f);
    caps.push_back(caps[i]);
    expected.push_back(nullptr);
  }
  check_batch(blocks, caps, gpu::Framing::raw_block, expected);
  check_batch(frames, caps, gpu::Framing::numcodecs, expected);
}

}  // namespace
}  // namespace zarrgpu::lz4::testing
