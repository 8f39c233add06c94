// The Blosc 1 chunk header (c-blosc README_CHUNK_FORMAT.rst, "The header
// section"), its checks, and what follows from it: block count and sizes,
// and how many split streams a block has. The checks are c-blosc 1.x's
// (blosc_run_decompression_with_context), plus the chunk's real size.
#pragma once

#include "status.hpp"

namespace zarrgpu::blosc {

inline constexpr size_t kHeaderBytes = 16;
inline constexpr uint8_t kFormatVersion = 2;      // c-blosc 1.x BLOSC_VERSION_FORMAT
inline constexpr uint8_t kCodecFormatVersion = 1;  // every codec's *_VERSION_FORMAT

// "flags and compressor enumeration".
inline constexpr uint8_t kFlagByteShuffle = 0x01;
inline constexpr uint8_t kFlagMemcpyed = 0x02;
inline constexpr uint8_t kFlagBitShuffle = 0x04;
inline constexpr uint8_t kFlagReserved = 0x08;
inline constexpr uint8_t kFlagDontSplit = 0x10;
enum class Codec : uint8_t { blosclz = 0, lz4 = 1, snappy = 2, zlib = 3, zstd = 4 };

// c-blosc blosc.c: a block is split into typesize streams only when
// typesize <= MAX_SPLITS and it holds >= MIN_BUFFERSIZE elements.
inline constexpr uint32_t kMaxSplits = 16;
inline constexpr uint32_t kMinSplitElements = 128;
// blosc.h BLOSC_MAX_BLOCKSIZE; sizes are int32 in c-blosc.
inline constexpr uint32_t kMaxBlockSize = (0x7FFFFFFFu - 255u * 4u) / 3u;
inline constexpr uint32_t kMaxSize = 0x7FFFFFFFu;

struct ChunkHeader {
  uint8_t version = 0, codec_version = 0, flags = 0, typesize = 0;
  uint32_t nbytes = 0, blocksize = 0, cbytes = 0;

  ZARRGPU_HD_INLINE Codec codec() const { return static_cast<Codec>(flags >> 5); }
  ZARRGPU_HD_INLINE bool memcpyed() const { return (flags & kFlagMemcpyed) != 0; }
  ZARRGPU_HD_INLINE uint32_t block_count() const {
    return nbytes / blocksize + (nbytes % blocksize != 0 ? 1u : 0u);
  }
  // The last block holds the leftover nbytes % blocksize, when there is one.
  ZARRGPU_HD_INLINE bool is_leftover_block(uint32_t block) const {
    return block + 1 == block_count() && nbytes % blocksize != 0;
  }
  ZARRGPU_HD_INLINE uint32_t block_size(uint32_t block) const {
    return is_leftover_block(block) ? nbytes % blocksize : blocksize;
  }
  ZARRGPU_HD_INLINE uint32_t split_count(uint32_t block) const {
    const bool split = (flags & kFlagDontSplit) == 0 && typesize <= kMaxSplits &&
                       block_size(block) / typesize >= kMinSplitElements && !is_leftover_block(block);
    return split ? typesize : 1u;
  }
  // c-blosc's filter choice for one block (blosc_d): byte shuffle wins over
  // bit shuffle; byte shuffle of 1-byte elements is the identity.
  ZARRGPU_HD_INLINE bool byte_shuffled() const { return (flags & kFlagByteShuffle) != 0 && typesize > 1; }
  ZARRGPU_HD_INLINE bool bit_shuffled(uint32_t block) const {
    return !byte_shuffled() && (flags & kFlagBitShuffle) != 0 && block_size(block) >= typesize;
  }
};

// Reads and checks the header of the chunk src[0, src_size) that is to
// decode into `capacity` bytes. An empty chunk (nbytes 0) is ok whatever
// else the header says, as in c-blosc.
ZARRGPU_HD_INLINE Status parse_chunk_header(const uint8_t* src, size_t src_size, size_t capacity, ChunkHeader* h) {
  if (src == nullptr && src_size != 0) return Status::invalid_argument;
  if (src_size < kHeaderBytes) return Status::truncated_input;
  h->version = src[0];
  h->codec_version = src[1];
  h->flags = src[2];
  h->typesize = src[3];
  h->nbytes = load_le32(src + 4);
  h->blocksize = load_le32(src + 8);
  h->cbytes = load_le32(src + 12);
  if (h->nbytes == 0) return Status::ok;
  if (h->nbytes > kMaxSize || h->cbytes > kMaxSize || h->cbytes < kHeaderBytes) return Status::corrupt_header;
  if (h->blocksize == 0 || h->blocksize > kMaxBlockSize || h->typesize == 0) return Status::corrupt_header;
  if (h->blocksize > capacity || h->nbytes > capacity) return Status::output_too_small;
  if (h->version != kFormatVersion) return Status::unsupported_version;
  if ((h->flags & kFlagReserved) != 0) return Status::reserved_flag;
  if (h->cbytes > src_size) return Status::truncated_input;
  if (h->memcpyed()) {
    // The data follows the header as is.
    return h->cbytes == h->nbytes + kHeaderBytes ? Status::ok : Status::corrupt_header;
  }
  const Codec c = h->codec();
  if (c != Codec::blosclz && c != Codec::lz4 && c != Codec::zlib && c != Codec::zstd) return Status::unsupported_codec;
  if (h->codec_version != kCodecFormatVersion) return Status::unsupported_version;
  // "bstarts": one int32 per block after the header.
  if (h->block_count() > (h->cbytes - kHeaderBytes) / 4) return Status::truncated_input;
  return Status::ok;
}

}  // namespace zarrgpu::blosc
