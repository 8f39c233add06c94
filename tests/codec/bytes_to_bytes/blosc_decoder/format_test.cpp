// Hand-written chunks, one per check of the Blosc 1 container
// (README_CHUNK_FORMAT.rst and c-blosc's decoder): each status comes from
// the rule the test names, and c-blosc agrees where it has an opinion.
#include <gtest/gtest.h>

#include "chunk_corpus.hpp"

namespace zarrgpu::blosc::testing {
namespace {

void put32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void append32(Bytes& b, uint32_t v) {
  b.resize(b.size() + 4);
  put32(b, b.size() - 4, v);
}

// A one-block, unsplit chunk whose stream is stored as is (its size equals
// the block's): "abcdefgh" with flags `flags` (codec lz4 unless given).
Bytes stored_chunk(uint8_t flags = 1u << 5, uint8_t typesize = 1) {
  Bytes c = {2, 1, static_cast<uint8_t>(flags | kFlagDontSplit), typesize};
  append32(c, 8);       // nbytes
  append32(c, 8);       // blocksize
  append32(c, 0);       // cbytes, set below
  append32(c, 20);      // bstarts[0]
  append32(c, 8);       // the stream's size: == the block's, stored as is
  for (char ch : std::string("abcdefgh")) c.push_back(static_cast<uint8_t>(ch));
  put32(c, 12, static_cast<uint32_t>(c.size()));
  return c;
}

Status decode(const Bytes& c, size_t capacity = 64) {
  const Guarded g = guarded_decode(c, capacity);
  EXPECT_TRUE(g.guard_ok);
  return g.status;
}

TEST(BloscFormat, StoredStreamIsCopied) {
  const Guarded g = guarded_decode(stored_chunk(), 8);
  EXPECT_EQ(g.status, Status::ok) << status_name(g.status);
  EXPECT_TRUE(g.out == Bytes({'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}));
  Bytes ref;
  EXPECT_EQ(reference_decode(stored_chunk(), 8, &ref), 8);
}

TEST(BloscFormat, ByteShuffleOfTwoByteElementsIsUndone) {
  const Guarded g = guarded_decode(stored_chunk((1u << 5) | kFlagByteShuffle, 2), 8);
  EXPECT_EQ(g.status, Status::ok);
  EXPECT_TRUE(g.out == Bytes({'a', 'e', 'b', 'f', 'c', 'g', 'd', 'h'}));
  Bytes ref;
  EXPECT_EQ(reference_decode(stored_chunk((1u << 5) | kFlagByteShuffle, 2), 8, &ref), 8);
  EXPECT_TRUE(ref == g.out);
}

TEST(BloscFormat, HeaderChecks) {
  Bytes c = stored_chunk();
  c[0] = 3;
  EXPECT_EQ(decode(c), Status::unsupported_version);
  c = stored_chunk();
  c[1] = 2;
  EXPECT_EQ(decode(c), Status::unsupported_version);
  EXPECT_EQ(decode(stored_chunk(1u << 5 | kFlagReserved)), Status::reserved_flag);
  EXPECT_EQ(decode(stored_chunk(2u << 5)), Status::unsupported_codec);  // snappy
  EXPECT_EQ(decode(stored_chunk(5u << 5)), Status::unsupported_codec);
  c = stored_chunk();
  c[3] = 0;
  EXPECT_EQ(decode(c), Status::corrupt_header);
  c = stored_chunk();
  put32(c, 8, 0);
  EXPECT_EQ(decode(c), Status::corrupt_header);
  c = stored_chunk();
  put32(c, 12, 15);
  EXPECT_EQ(decode(c), Status::corrupt_header);
  EXPECT_EQ(decode(stored_chunk(), 7), Status::output_too_small);
  c = stored_chunk();
  put32(c, 12, static_cast<uint32_t>(c.size() + 1));
  EXPECT_EQ(decode(c), Status::truncated_input);
  EXPECT_EQ(decode(Bytes(15, 0)), Status::truncated_input);
}

TEST(BloscFormat, EmptyChunkDecodesToNothingWhateverTheRest) {
  Bytes c = stored_chunk();
  put32(c, 4, 0);
  c[0] = 99;
  const Guarded g = guarded_decode(c, 0);
  EXPECT_EQ(g.status, Status::ok);
  EXPECT_TRUE(g.out.empty());
}

TEST(BloscFormat, MemcpyedChunkHoldsTheDataAfterTheHeader) {
  Bytes c = {2, 1, kFlagMemcpyed | kFlagByteShuffle, 4};
  append32(c, 5);
  append32(c, 5);
  append32(c, 21);
  for (uint8_t i = 1; i <= 5; ++i) c.push_back(i);
  const Guarded g = guarded_decode(c, 5);
  EXPECT_EQ(g.status, Status::ok);  // memcpyed: the shuffle flag is not applied
  EXPECT_TRUE(g.out == Bytes({1, 2, 3, 4, 5}));
  put32(c, 12, 20);
  EXPECT_EQ(decode(c), Status::corrupt_header);
}

TEST(BloscFormat, BlockStartsAndStreamSizesStayInsideTheChunk) {
  Bytes c = stored_chunk();
  put32(c, 12, 20);  // bstarts fits, the block start (20) leaves no room for a stream size
  EXPECT_EQ(decode(c), Status::corrupt_block_start);
  c = stored_chunk();
  put32(c, 16, static_cast<uint32_t>(c.size() - 3));
  EXPECT_EQ(decode(c), Status::corrupt_block_start);
  c = stored_chunk();
  put32(c, 16, 0xFFFFFFF0u);  // negative as c-blosc's int32
  EXPECT_EQ(decode(c), Status::corrupt_block_start);
  c = stored_chunk();
  put32(c, 20, 9);  // one byte more than the chunk holds
  EXPECT_EQ(decode(c), Status::corrupt_stream_size);
  c = stored_chunk();
  put32(c, 20, 0x80000000u);
  EXPECT_EQ(decode(c), Status::corrupt_stream_size);
  // Two blocks declared, room for one bstarts entry only.
  c = stored_chunk();
  put32(c, 4, 16);
  c.resize(20);
  put32(c, 12, 20);
  EXPECT_EQ(decode(c), Status::truncated_input);
}

TEST(BloscFormat, StreamDecodingToAnotherSizeIsAMismatch) {
  // An LZ4 stream of 3 literals for an 8-byte block.
  Bytes c = {2, 1, (1u << 5) | kFlagDontSplit, 1};
  append32(c, 8);
  append32(c, 8);
  append32(c, 0);
  append32(c, 20);
  append32(c, 4);
  for (const int b : {0x30, int{'a'}, int{'b'}, int{'c'}}) c.push_back(static_cast<uint8_t>(b));
  put32(c, 12, static_cast<uint32_t>(c.size()));
  EXPECT_EQ(decode(c), Status::stream_size_mismatch);
  c[24] = 0x40;  // 4 literals announced, 3 present: the stream itself is corrupt
  const Guarded g = guarded_decode(c, 64);
  EXPECT_EQ(g.status, Status::corrupt_stream);
  EXPECT_EQ(g.inner_status, static_cast<uint32_t>(lz4::Status::truncated_input));
  Bytes ref;
  EXPECT_EQ(reference_decode(c, 64, &ref), -1);
}

TEST(BloscFormat, SplitsMustTileTheBlock) {
  // typesize 3, blocksize 400 (133 elements): 3 splits of 133 bytes leave one byte.
  Bytes c = {2, 1, 1u << 5, 3};
  append32(c, 400);
  append32(c, 400);
  append32(c, 0);
  append32(c, 20);
  for (int s = 0; s < 3; ++s) {
    append32(c, 133);
    c.insert(c.end(), 133, static_cast<uint8_t>(s));
  }
  put32(c, 12, static_cast<uint32_t>(c.size()));
  EXPECT_EQ(decode(c, 400), Status::corrupt_header);
}

TEST(BloscUnshuffle, ByteShuffleMovesPlanesBackAndKeepsTheTail) {
  const Bytes src = {0, 3, 6, 1, 4, 7, 2, 5, 8, 9, 10};  // 3 elements of 3 bytes, planes, then 2 tail bytes
  Bytes dst(src.size());
  byte_unshuffle(3, src.size(), src.data(), dst.data());
  EXPECT_TRUE(dst == Bytes({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
}

TEST(BloscUnshuffle, BitShuffleTransposesBitsOfEightElementGroups) {
  // 8 one-byte elements: element i has only bit i set, so bit plane k holds
  // only element k's bit: byte k == 1 << k, and the transpose is the identity.
  Bytes src(8), dst(8);
  for (int k = 0; k < 8; ++k) src[k] = static_cast<uint8_t>(1u << k);
  bit_unshuffle(1, 8, src.data(), dst.data());
  EXPECT_TRUE(dst == src);
  // All elements 0x01: plane 0 is 0xFF, the others 0.
  src.assign(8, 0);
  src[0] = 0xFF;
  bit_unshuffle(1, 8, src.data(), dst.data());
  EXPECT_TRUE(dst == Bytes(8, 1));
  // 12 elements (not a multiple of 8): c-blosc copies the block as is.
  Bytes odd(12), out(12);
  for (int i = 0; i < 12; ++i) odd[i] = static_cast<uint8_t>(i * 7);
  bit_unshuffle(1, 12, odd.data(), out.data());
  EXPECT_TRUE(out == odd);
}

}  // namespace
}  // namespace zarrgpu::blosc::testing
