// Host entry of the Blosc 1 decoder: a whole chunk, block after block, with
// every codec Blosc 1 writes except snappy: BloscLZ and LZ4 by our
// __host__ __device__ format logic, Zstd by our host Zstandard decoder, zlib
// by zlib (no GPU deflate yet). Tests, the fuzzer and tools use it; it is
// the reference the GPU kernels' statuses are checked against.
#pragma once

#include <zlib.h>

#include <vector>

#include "block.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/decode_frames.hpp"

namespace zarrgpu::blosc {

struct HostStreamDecoder {
  Status operator()(Codec codec, const uint8_t* src, size_t src_size, uint8_t* dst, size_t capacity,
                    size_t* decoded_size, uint32_t* inner_status) const {
    if (codec == Codec::zstd) {
      const zstd::Status st = zstd::decode_frames(src, src_size, dst, capacity, decoded_size);
      *inner_status = static_cast<uint32_t>(st);
      return st == zstd::Status::ok ? Status::ok : Status::corrupt_stream;
    }
    if (codec == Codec::zlib) {
      // c-blosc writes zlib's format (compress2) and reads it with uncompress.
      uLongf n = static_cast<uLongf>(capacity);
      const int st = uncompress(dst, &n, src, static_cast<uLong>(src_size));
      *inner_status = static_cast<uint32_t>(-st);
      *decoded_size = st == Z_OK ? static_cast<size_t>(n) : 0;
      return st == Z_OK ? Status::ok : Status::corrupt_stream;
    }
    return DeviceStreamDecoder{}(codec, src, src_size, dst, capacity, decoded_size, inner_status);
  }
};

// Decodes the chunk src[0, src_size) into dst[0, capacity); on success
// *decoded_size is the header's nbytes. On failure dst's contents are
// unspecified and, for corrupt_stream, *inner_status (when given) holds the
// stream codec's own status.
inline Status decode_chunk(const uint8_t* src, size_t src_size, uint8_t* dst, size_t capacity, size_t* decoded_size,
                           uint32_t* inner_status = nullptr) {
  *decoded_size = 0;
  uint32_t ignored = 0;
  if (inner_status == nullptr) inner_status = &ignored;
  *inner_status = 0;
  if (dst == nullptr && capacity != 0) return Status::invalid_argument;
  ChunkHeader h;
  const Status hs = parse_chunk_header(src, src_size, capacity, &h);
  if (hs != Status::ok || h.nbytes == 0) return hs;
  std::vector<uint8_t> scratch(h.byte_shuffled() || (h.flags & kFlagBitShuffle) ? h.blocksize : 0);
  const uint32_t blocks = h.block_count();
  for (uint32_t b = 0; b < blocks; ++b) {
    const Status st = decode_block(h, src, b, dst, scratch.data(), HostStreamDecoder{}, inner_status);
    if (st != Status::ok) return st;
  }
  *decoded_size = h.nbytes;
  return Status::ok;
}

}  // namespace zarrgpu::blosc
