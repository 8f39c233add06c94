// Counts what a chunk contains (block types, literal modes, table modes),
// walking it with the decoder's own header parsers, so that tests can show
// that every part of RFC 8878 was exercised.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "codec/bytes_to_bytes/zstd/decoder/frame.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/literals.hpp"

namespace zarrgpu::zstd::testing {

struct Census {
  uint64_t frames = 0, skippable = 0, no_content_size = 0, single_segment = 0, checksummed = 0;
  std::array<uint64_t, 4> block_types{};      // raw, rle, compressed, reserved
  std::array<uint64_t, 4> literal_types{};    // raw, rle, compressed, treeless
  uint64_t one_stream = 0, four_streams = 0, no_sequences = 0;
  std::array<std::array<uint64_t, 4>, 3> table_modes{};  // [ll, of, ml][predefined, rle, compressed, repeat]

  void add(const Census& o) {
    frames += o.frames; skippable += o.skippable; no_content_size += o.no_content_size;
    single_segment += o.single_segment; checksummed += o.checksummed;
    for (int i = 0; i < 4; ++i) { block_types[i] += o.block_types[i]; literal_types[i] += o.literal_types[i]; }
    one_stream += o.one_stream; four_streams += o.four_streams; no_sequences += o.no_sequences;
    for (int c = 0; c < 3; ++c) for (int m = 0; m < 4; ++m) table_modes[c][m] += o.table_modes[c][m];
  }
  std::string str() const {
    std::string s = "frames=" + std::to_string(frames) + " skippable=" + std::to_string(skippable) +
                    " no_fcs=" + std::to_string(no_content_size) + " single_segment=" + std::to_string(single_segment) +
                    " checksummed=" + std::to_string(checksummed) + "\n blocks raw/rle/compressed=" +
                    std::to_string(block_types[0]) + "/" + std::to_string(block_types[1]) + "/" +
                    std::to_string(block_types[2]) + "\n literals raw/rle/huffman/treeless=" +
                    std::to_string(literal_types[0]) + "/" + std::to_string(literal_types[1]) + "/" +
                    std::to_string(literal_types[2]) + "/" + std::to_string(literal_types[3]) +
                    " streams 1/4=" + std::to_string(one_stream) + "/" + std::to_string(four_streams) +
                    " no_sequences=" + std::to_string(no_sequences);
    const char* names[3] = {"ll", "of", "ml"};
    for (int c = 0; c < 3; ++c) {
      s += std::string("\n ") + names[c] + " predefined/rle/compressed/repeat=";
      for (int m = 0; m < 4; ++m) s += std::to_string(table_modes[c][m]) + (m < 3 ? "/" : "");
    }
    return s;
  }
};

inline void take_census(const uint8_t* src, size_t size, Census* c) {
  size_t ip = 0;
  while (ip + 8 <= size) {
    const uint32_t magic = load_le32(src + ip);
    if (is_skippable_magic(magic)) {
      c->skippable++;
      ip += 8 + load_le32(src + ip + 4);
      continue;
    }
    FrameHeader fh;
    if (parse_frame_header(src + ip, size - ip, &fh) != Status::ok) return;
    c->frames++;
    c->no_content_size += !fh.has_content_size;
    c->single_segment += fh.single_segment;
    c->checksummed += fh.has_checksum;
    ip += fh.header_size;
    for (;;) {
      if (ip + 3 > size) return;
      const BlockHeader bh = parse_block_header(src + ip);
      ip += 3;
      c->block_types[static_cast<int>(bh.type)]++;
      const size_t content = block_content_size(bh);
      if (ip + content > size) return;
      if (bh.type == BlockType::compressed) {
        LiteralsHeader lh;
        if (parse_literals_header(src + ip, content, &lh) != Status::ok) return;
        c->literal_types[static_cast<int>(lh.type)]++;
        size_t lsize = lh.header_size;
        if (lh.type == LiteralsType::raw) lsize += lh.regenerated_size;
        else if (lh.type == LiteralsType::rle) lsize += 1;
        else {
          lsize += lh.compressed_size;
          (lh.streams == 1 ? c->one_stream : c->four_streams)++;
        }
        const uint8_t* s = src + ip + lsize;
        const size_t n = content - lsize;
        if (n >= 1) {
          size_t p = s[0] < 128 ? 1 : s[0] < 255 ? 2 : 3;
          if (s[0] == 0) {
            c->no_sequences++;
          } else if (p < n) {
            const uint32_t modes = s[p];
            c->table_modes[0][modes >> 6]++;
            c->table_modes[1][(modes >> 4) & 3]++;
            c->table_modes[2][(modes >> 2) & 3]++;
          }
        }
      }
      ip += content;
      if (bh.last) break;
    }
    if (fh.has_checksum) ip += 4;
  }
}

}  // namespace zarrgpu::zstd::testing
