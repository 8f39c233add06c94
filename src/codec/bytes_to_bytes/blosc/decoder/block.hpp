// One Blosc 1 block (c-blosc README_CHUNK_FORMAT.rst, "The blocks / splits
// section"): its start in `bstarts`, its split streams each prefixed by an
// int32 compressed size, each stream decoded by the chunk's codec (or stored
// as is when its size equals the split's), then the block's filter undone.
// Blocks are independent: the unit of parallelism.
#pragma once

#include "blosclz.hpp"
#include "chunk_header.hpp"
#include "codec/bytes_to_bytes/lz4/decoder/block.hpp"
#include "unshuffle.hpp"

namespace zarrgpu::blosc {

// Decodes one stream of `codec` into at most `capacity` bytes,
// setting *decoded_size; `inner_status` gets the codec's own status on failure.
// This one knows the codecs whose format logic is __host__ __device__.
struct DeviceStreamDecoder {
  ZARRGPU_HD_INLINE Status operator()(Codec codec, const uint8_t* src, size_t src_size, uint8_t* dst, size_t capacity,
                                      size_t* decoded_size, uint32_t* inner_status) const {
    if (codec == Codec::lz4) {
      const lz4::Status st = lz4::decode_block(src, src_size, dst, capacity, decoded_size);
      *inner_status = static_cast<uint32_t>(st);
      return st == lz4::Status::ok ? Status::ok : Status::corrupt_stream;
    }
    if (codec == Codec::blosclz) {
      const BloscLzStatus st = decode_blosclz(src, src_size, dst, capacity, decoded_size);
      *inner_status = static_cast<uint32_t>(st);
      return st == BloscLzStatus::ok ? Status::ok : Status::corrupt_stream;
    }
    return Status::host_only_codec;
  }
};

// Where block `block` of a chunk with header `h` starts: bstarts[block], an
// int32 offset from the chunk's start. parse_chunk_header checked that
// bstarts lies inside cbytes.
ZARRGPU_HD_INLINE int64_t block_start(const uint8_t* src, uint32_t block) {
  return static_cast<int32_t>(load_le32(src + kHeaderBytes + 4 * static_cast<size_t>(block)));
}

// Decodes block `block` of the chunk src (header h, already parsed and
// checked for a capacity >= h.nbytes) into its place in dst. `scratch` holds
// h.blocksize bytes when the chunk is shuffled. On failure `inner_status` is
// the stream codec's status (corrupt_stream) or 0.
template <typename StreamDecoder>
ZARRGPU_HD_INLINE Status decode_block(const ChunkHeader& h, const uint8_t* src, uint32_t block, uint8_t* dst,
                                      uint8_t* scratch, const StreamDecoder& decode_stream, uint32_t* inner_status) {
  *inner_status = 0;
  const size_t bsize = h.block_size(block);
  uint8_t* out = dst + static_cast<size_t>(block) * h.blocksize;
  if (h.memcpyed()) {
    const uint8_t* from = src + kHeaderBytes + static_cast<size_t>(block) * h.blocksize;
    for (size_t i = 0; i < bsize; ++i) out[i] = from[i];
    return Status::ok;
  }
  const bool byte_shuffled = h.byte_shuffled();
  const bool bit_shuffled = h.bit_shuffled(block);
  uint8_t* streams_out = byte_shuffled || bit_shuffled ? scratch : out;
  const uint32_t splits = h.split_count(block);
  const size_t split_size = bsize / splits;
  // A block that its splits do not tile (blocksize not a multiple of
  // typesize): c-blosc would leave its last bytes unwritten.
  if (split_size * splits != bsize) return Status::corrupt_header;
  int64_t offset = block_start(src, block);
  const int64_t cbytes = h.cbytes;
  for (uint32_t s = 0; s < splits; ++s) {
    if (offset < 0 || offset > cbytes - 4)
      return s == 0 ? Status::corrupt_block_start : Status::corrupt_stream_size;
    const int64_t stream_bytes = static_cast<int32_t>(load_le32(src + offset));
    offset += 4;
    if (stream_bytes < 0 || stream_bytes > cbytes - offset) return Status::corrupt_stream_size;
    const uint8_t* stream = src + offset;
    uint8_t* split_out = streams_out + s * split_size;
    if (static_cast<size_t>(stream_bytes) == split_size) {
      // Blosc stores a stream that did not compress as is.
      for (size_t i = 0; i < split_size; ++i) split_out[i] = stream[i];
    } else {
      size_t n = 0;
      const Status st = decode_stream(h.codec(), stream, static_cast<size_t>(stream_bytes), split_out, split_size, &n,
                                      inner_status);
      if (st != Status::ok) return st;
      if (n != split_size) return Status::stream_size_mismatch;
    }
    offset += stream_bytes;
  }
  if (byte_shuffled) byte_unshuffle(h.typesize, bsize, scratch, out);
  if (bit_shuffled) bit_unshuffle(h.typesize, bsize, scratch, out);
  return Status::ok;
}

}  // namespace zarrgpu::blosc
