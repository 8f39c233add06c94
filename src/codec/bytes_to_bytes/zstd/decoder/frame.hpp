// Frames of RFC 8878 §3.1.1 (header §3.1.1.1, blocks, checksum) and
// skippable frames (§3.1.2); a chunk is any sequence of both.
#pragma once

#include "block.hpp"
#include "config.hpp"
#include "workspace.hpp"
#include "xxhash64.hpp"

namespace zarrgpu::zstd {

struct FrameHeader {
  uint64_t window_size;        // bytes a match may reach back (§3.1.1.1.2)
  uint64_t content_size;       // Frame_Content_Size, valid when has_content_size
  uint32_t dictionary_id;
  uint32_t header_size;        // magic number included
  uint32_t block_size_max;     // Block_Maximum_Size = min(Window_Size, 128 KiB)
  bool has_content_size;
  bool has_checksum;
  bool single_segment;
};

ZARRGPU_HD_INLINE bool is_skippable_magic(uint32_t magic) {
  return (magic & kSkippableMagicMask) == kSkippableMagic;
}

// Parses a Zstandard frame header at src (magic number included).
ZARRGPU_HD_INLINE Status parse_frame_header(const uint8_t* src, size_t size, FrameHeader* fh) {
  if (size < 5) return Status::truncated_input;
  if (load_le32(src) != kFrameMagic) return Status::unknown_frame;
  // §3.1.1.1.1 Frame_Header_Descriptor.
  const uint32_t fhd = src[4];
  const uint32_t fcs_flag = fhd >> 6;
  const bool single_segment = (fhd >> 5) & 1u;
  if ((fhd >> 3) & 1u) return Status::reserved_bit_set;
  const bool checksum = (fhd >> 2) & 1u;
  const uint32_t dict_flag = fhd & 3u;

  const uint32_t dict_bytes = dict_flag == 3 ? 4u : dict_flag;
  const uint32_t fcs_bytes = fcs_flag == 0 ? (single_segment ? 1u : 0u) : (1u << fcs_flag);
  const uint32_t header_size = 5u + (single_segment ? 0u : 1u) + dict_bytes + fcs_bytes;
  if (size < header_size) return Status::truncated_input;

  const uint8_t* p = src + 5;
  uint64_t window_size = 0;
  if (!single_segment) {
    // §3.1.1.1.2 Window_Descriptor.
    const uint32_t exponent = p[0] >> 3;
    const uint32_t mantissa = p[0] & 7u;
    const uint32_t window_log = 10 + exponent;
    if (window_log > kWindowLogMax) return Status::window_too_large;
    const uint64_t window_base = uint64_t{1} << window_log;
    window_size = window_base + (window_base / 8) * mantissa;
    ++p;
  }
  // §3.1.1.1.3 Dictionary_ID.
  uint32_t dict_id = 0;
  switch (dict_bytes) {
    case 1: dict_id = p[0]; break;
    case 2: dict_id = load_le16(p); break;
    case 4: dict_id = load_le32(p); break;
    default: break;
  }
  p += dict_bytes;
  // §3.1.1.1.4 Frame_Content_Size; the 2-byte form is offset by 256.
  uint64_t content_size = 0;
  switch (fcs_bytes) {
    case 1: content_size = p[0]; break;
    case 2: content_size = load_le16(p) + 256u; break;
    case 4: content_size = load_le32(p); break;
    case 8: content_size = load_le64_bytes(p); break;
    default: break;
  }
  if (single_segment) window_size = content_size;

  fh->window_size = window_size;
  fh->content_size = content_size;
  fh->dictionary_id = dict_id;
  fh->header_size = header_size;
  fh->block_size_max = window_size < kBlockSizeMax ? static_cast<uint32_t>(window_size) : kBlockSizeMax;
  fh->has_content_size = fcs_bytes != 0;
  fh->has_checksum = checksum;
  fh->single_segment = single_segment;
  return Status::ok;
}

// Decodes every frame of a chunk (Zstandard and skippable frames,
// concatenated) into dst[0, capacity). Run by all ranks of the group; the
// result is the same in every rank.
template <class G>
ZARRGPU_HD Status decode_chunk(G g, Workspace& ws, const uint8_t* src, size_t src_size, uint8_t* dst,
                               size_t capacity, size_t* decoded_size, bool verify_checksum) {
  size_t ip = 0;
  size_t op = 0;
  *decoded_size = 0;
  while (ip < src_size) {
    const size_t left = src_size - ip;
    if (left < 4) return Status::truncated_input;
    const uint32_t magic = load_le32(src + ip);
    if (is_skippable_magic(magic)) {
      // §3.1.2: magic, 4-byte User_Data size, user data.
      if (left < 8) return Status::truncated_input;
      const size_t user = load_le32(src + ip + 4);
      if (user > left - 8) return Status::truncated_input;
      ip += 8 + user;
      continue;
    }
    FrameHeader fh;
    Status st = parse_frame_header(src + ip, left, &fh);
    if (st != Status::ok) return st;
    if (fh.dictionary_id != 0) return Status::dictionary_required;
    if (fh.has_content_size && fh.content_size > capacity - op) return Status::output_too_small;
    ip += fh.header_size;

    // Entropy tables do not cross frames; predefined tables may stay built.
    g.sync();
    if (g.rank() == 0) {
      ws.huffman_valid = false;
      for (int c = 0; c < 3; ++c) {
        ws.fse_repeatable[c] = false;
        if (ws.fse_kind[c] != TableKind::predefined) ws.fse_kind[c] = TableKind::none;
      }
    }
    g.sync();
    BlockContext ctx{op, fh.window_size, fh.block_size_max, {1, 4, 8}};
    for (;;) {
      if (src_size - ip < kBlockHeaderSize) return Status::truncated_input;
      const BlockHeader bh = parse_block_header(src + ip);
      ip += kBlockHeaderSize;
      const size_t content = block_content_size(bh);
      if (src_size - ip < content) return Status::truncated_input;
      switch (bh.type) {
        case BlockType::raw:
          if (bh.size > fh.block_size_max) return Status::corrupt_block;
          if (bh.size > capacity - op) return Status::output_too_small;
          group_copy_bytes(g, dst + op, src + ip, bh.size);
          op += bh.size;
          break;
        case BlockType::rle:
          if (bh.size > fh.block_size_max) return Status::corrupt_block;
          if (bh.size > capacity - op) return Status::output_too_small;
          group_fill(g, dst + op, src[ip], bh.size);
          op += bh.size;
          break;
        case BlockType::compressed:
          if (bh.size > fh.block_size_max) return Status::corrupt_block;
          st = decode_compressed_block(g, ws, ctx, src + ip, bh.size, dst, capacity, &op);
          if (st != Status::ok) return st;
          break;
        default:
          return Status::corrupt_block;
      }
      ip += content;
      if (bh.last) break;
    }
    g.sync();
    const size_t frame_size = op - ctx.frame_start;
    if (fh.has_content_size && frame_size != fh.content_size) return Status::content_size_mismatch;
    if (fh.has_checksum) {
      if (src_size - ip < 4) return Status::truncated_input;
      if (verify_checksum) {
        const uint64_t h = xxh64_group(g, dst + ctx.frame_start, frame_size);
        if (static_cast<uint32_t>(h) != load_le32(src + ip)) return Status::checksum_mismatch;
      }
      ip += 4;
    }
  }
  *decoded_size = op;
  return Status::ok;
}

// Puts a fresh workspace in its initial state (rank 0 only).
ZARRGPU_HD_INLINE void reset_workspace(Workspace& ws) {
  ws.huffman_valid = false;
  ws.defer_fse_builds = false;
  ws.huffman_log = 0;
  for (int c = 0; c < 3; ++c) {
    ws.fse_kind[c] = TableKind::none;
    ws.fse_repeatable[c] = false;
    ws.fse_log[c] = 0;
  }
}

}  // namespace zarrgpu::zstd
