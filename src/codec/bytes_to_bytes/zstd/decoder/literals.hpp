// Literals section of RFC 8878 §3.1.1.3.1: header (§3.1.1.3.1.1), Huffman
// tree (§3.1.1.3.1.5 -> §4.2.1) and 1 or 4 streams (§3.1.1.3.1.6).
#pragma once

#include "config.hpp"
#include "huffman.hpp"
#include "workspace.hpp"

namespace zarrgpu::zstd {

enum class LiteralsType : uint32_t { raw = 0, rle = 1, compressed = 2, treeless = 3 };

struct LiteralsHeader {
  LiteralsType type;
  uint32_t streams;            // 1 or 4 for compressed and treeless
  uint32_t header_size;
  uint32_t regenerated_size;
  uint32_t compressed_size;    // compressed and treeless: tree description + streams
};

ZARRGPU_HD_INLINE Status parse_literals_header(const uint8_t* src, size_t size, LiteralsHeader* h) {
  if (size < 1) return Status::corrupt_literals;
  const uint32_t b0 = src[0];
  h->type = static_cast<LiteralsType>(b0 & 3u);
  const uint32_t size_format = (b0 >> 2) & 3u;
  if (h->type == LiteralsType::raw || h->type == LiteralsType::rle) {
    h->streams = 1;
    h->compressed_size = 0;
    switch (size_format) {
      case 1:
        if (size < 2) return Status::corrupt_literals;
        h->header_size = 2;
        h->regenerated_size = (b0 >> 4) + (static_cast<uint32_t>(src[1]) << 4);
        break;
      case 3:
        if (size < 3) return Status::corrupt_literals;
        h->header_size = 3;
        h->regenerated_size = (b0 >> 4) + (static_cast<uint32_t>(src[1]) << 4) + (static_cast<uint32_t>(src[2]) << 12);
        break;
      default:  // 0 and 2: Size_Format uses 1 bit, Regenerated_Size 5 bits
        h->header_size = 1;
        h->regenerated_size = b0 >> 3;
        break;
    }
    return Status::ok;
  }
  uint32_t bits = 0;
  switch (size_format) {
    case 0: h->streams = 1; h->header_size = 3; bits = 10; break;
    case 1: h->streams = 4; h->header_size = 3; bits = 10; break;
    case 2: h->streams = 4; h->header_size = 4; bits = 14; break;
    default: h->streams = 4; h->header_size = 5; bits = 18; break;
  }
  if (size < h->header_size) return Status::corrupt_literals;
  uint64_t v = 0;
  for (uint32_t i = 0; i < h->header_size; ++i) v |= static_cast<uint64_t>(src[i]) << (8 * i);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  h->regenerated_size = static_cast<uint32_t>((v >> 4) & mask);
  h->compressed_size = static_cast<uint32_t>((v >> (4 + bits)) & mask);
  return Status::ok;
}

// Where the block's literals are once the section is decoded: a byte range
// (raw: in the input; Huffman: in the output buffer's tail), or one repeated byte.
struct Literals {
  const uint8_t* data;
  uint32_t size;
  uint32_t section_size;  // bytes of the literals section in the block
  uint8_t rle_byte;
  bool rle;
  bool in_output;         // Huffman literals decoded into the output buffer's tail
};

// Where the 1 or 4 Huffman streams of a literals section are (§3.1.1.3.1.6)
// and how many symbols each decodes: streams at [offset, + size) from the
// start of the streams (past the tree description), symbols to
// dst + s * segment.
struct HuffmanStreams {
  uint32_t count;  // 1 or 4
  uint32_t segment;
  uint32_t offset[4];
  uint32_t size[4];
  uint32_t symbols[4];
};

// Reads the Jump_Table of 4-stream literals. False when it is corrupt.
ZARRGPU_HD_INLINE bool locate_huffman_streams(const LiteralsHeader& h, const uint8_t* p, size_t remaining,
                                              HuffmanStreams* s) {
  if (h.streams == 1) {
    s->count = 1;
    s->segment = 0;
    s->offset[0] = 0;
    s->size[0] = static_cast<uint32_t>(remaining);
    s->symbols[0] = h.regenerated_size;
    return true;
  }
  // Jump_Table: sizes of streams 1-3; stream 4 takes the rest.
  if (remaining < 6) return false;
  const size_t s1 = load_le16(p), s2 = load_le16(p + 2), s3 = load_le16(p + 4);
  if (s1 + s2 + s3 > remaining - 6) return false;
  const size_t segment = (static_cast<size_t>(h.regenerated_size) + 3) / 4;
  if (3 * segment > h.regenerated_size) return false;
  s->count = 4;
  s->segment = static_cast<uint32_t>(segment);
  const size_t sizes[4] = {s1, s2, s3, remaining - 6 - s1 - s2 - s3};
  size_t offset = 6;
  for (uint32_t k = 0; k < 4; ++k) {
    s->offset[k] = static_cast<uint32_t>(offset);
    s->size[k] = static_cast<uint32_t>(sizes[k]);
    s->symbols[k] = static_cast<uint32_t>(k < 3 ? segment : h.regenerated_size - 3 * segment);
    offset += sizes[k];
  }
  return true;
}

// Decodes the Huffman streams of a literals section (§3.1.1.3.1.6) with the
// table in ws: `p` points past the tree description (or at the streams of
// treeless literals), `remaining` bytes of streams; h.regenerated_size bytes
// go to dst. A rank per stream.
template <class G>
ZARRGPU_HD Status decode_huffman_literals(G g, Workspace& ws, const LiteralsHeader& h, const uint8_t* p,
                                          size_t remaining, uint8_t* dst) {
  HuffmanStreams s;
  if (!locate_huffman_streams(h, p, remaining, &s)) return Status::corrupt_literals;
  bool ok = true;
  for (uint32_t k = g.rank(); k < s.count; k += G::kSize) {
    ok = decode_huffman_stream(ws.huffman, ws.huffman_log, p + s.offset[k], s.size[k], dst + k * s.segment,
                               s.symbols[k]) &&
         ok;
  }
  return g.any(!ok) ? Status::corrupt_literals : Status::ok;
}

// Decodes the literals section at the start of a compressed block. Huffman
// literals are written to [room_end - regenerated_size, room_end): the tail of
// the room the block may fill, which sequence execution never overtakes
// (libzstd's in-place literals trick, so no scratch buffer is needed).
template <class G>
ZARRGPU_HD Status decode_literals(G g, Workspace& ws, const uint8_t* src, size_t size, uint8_t* room_end,
                                  size_t room, uint32_t block_size_max, Literals* lit) {
  LiteralsHeader h;
  Status st = parse_literals_header(src, size, &h);
  if (st != Status::ok) return st;
  if (h.regenerated_size > block_size_max) return Status::corrupt_literals;
  lit->size = h.regenerated_size;
  lit->rle = false;
  lit->rle_byte = 0;
  lit->in_output = false;
  if (h.type == LiteralsType::raw) {
    if (size - h.header_size < h.regenerated_size) return Status::truncated_input;
    lit->data = src + h.header_size;
    lit->section_size = h.header_size + h.regenerated_size;
    return Status::ok;
  }
  if (h.type == LiteralsType::rle) {
    if (size - h.header_size < 1) return Status::truncated_input;
    lit->data = nullptr;
    lit->rle = true;
    lit->rle_byte = src[h.header_size];
    lit->section_size = h.header_size + 1;
    return Status::ok;
  }
  if (size - h.header_size < h.compressed_size) return Status::corrupt_literals;
  if (h.regenerated_size > room) return Status::output_too_small;
  const uint8_t* p = src + h.header_size;
  size_t remaining = h.compressed_size;
  if (h.type == LiteralsType::compressed) {
    // Rank 0 builds the table; the group waits for it.
    g.sync();
    if (g.rank() == 0) {
      uint32_t log = 0;
      const size_t used = read_huffman_table(p, remaining, ws.scratch.huffman, ws.huffman, &log);
      ws.huffman_log = log;
      ws.huffman_valid = used != 0;
      ws.shared_value = static_cast<uint32_t>(used);
    }
    g.sync();
    const uint32_t used = ws.shared_value;
    if (used == 0) return Status::corrupt_huffman_table;
    p += used;
    remaining -= used;
  } else if (!ws.huffman_valid) {
    return Status::corrupt_huffman_table;  // treeless literals need an earlier table in this frame
  }
  uint8_t* dst = room_end - h.regenerated_size;
  st = decode_huffman_literals(g, ws, h, p, remaining, dst);
  if (st != Status::ok) return st;
  lit->data = dst;
  lit->in_output = true;
  lit->section_size = h.header_size + h.compressed_size;
  return Status::ok;
}

}  // namespace zarrgpu::zstd
