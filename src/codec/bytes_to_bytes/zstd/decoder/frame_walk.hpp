// Block-parallel decoding, the walk: the frame walk. One thread walks a
// chunk's frames (RFC 8878 §3.1.1) and block headers (§3.1.1.2), which sit
// at known places, and records per block where its content is, where its
// entropy tables come from, and the scratch it may use. Later phases:
// block_sections.hpp (entropy decoding: literals and sequences of every
// block at once), sequence_resolution.hpp (resolution: output offsets,
// repeat offsets, validation), block_execution.hpp (execution: the copies).
//
// Errors keep the serial decoder's order (frame.hpp) exactly: the walk stops
// at its first structural error and says where (WalkStop); errors that depend
// on where the output stands (capacity, offsets) are found by resolution, in
// stream order, and win when they come first.
#pragma once

#include "block.hpp"
#include "config.hpp"
#include "frame.hpp"
#include "literals.hpp"
#include "repeat_offsets.hpp"
#include "sequences.hpp"

namespace zarrgpu::zstd {

// (Literals_Length, Match_Length, Offset_Value) of one sequence; resolution
// replaces Offset_Value by the resolved offset (§3.1.1.5), and literal copy
// (block_execution.hpp) Literals_Length by where the match starts in the
// chunk's output: the form in which match copy finds the sequence that wrote
// a byte of an earlier block. A chunk's triples lie in block order with no
// gaps, so by then they are one sorted list of the chunk's matches.
struct SequenceTriple {
  union {
    uint32_t literals_length;  // entropy decoding to resolution
    uint32_t match_start;      // after literal copy, counted from the chunk's first output byte
  };
  uint32_t match_length;
  uint32_t offset;
};

// Where the walk stopped, for the error it found (ChunkPlan::walk_status).
enum class WalkStop : uint32_t {
  none = 0,
  frame_header = 1,  // before frame `frame_count` (a header, a skippable frame, trailing bytes)
  block = 2,         // inside the last recorded frame, after its recorded blocks
  checksum = 3,      // the last recorded frame's Content_Checksum is cut off
};

struct FrameRecord {
  uint64_t window_size;
  uint64_t content_size;
  uint64_t checksum_offset;   // input offset of Content_Checksum when has_checksum
  uint64_t output_start;      // resolution
  uint64_t output_size;       // resolution, once the frame's blocks are valid
  uint32_t block_size_max;
  uint32_t first_block;
  uint32_t block_count;
  bool has_content_size;
  bool has_checksum;
};

// Stage of an entropy decoding error, to interleave it with resolution's room checks the
// way decode_compressed_block() does.
enum class SectionStage : uint8_t {
  literals_header = 0,  // before the room check of Huffman literals
  literals_data = 1,    // Huffman table and streams
  sequences = 2,        // after `lit.size > room`: sequences header, tables, bitstream start
};

struct BlockRecord {
  // The walk.
  uint64_t src_offset;        // the block's content in the chunk's input
  uint32_t size;              // Block_Size
  uint32_t frame;
  BlockType type;
  int32_t huffman_source;     // block whose literals section holds the Huffman tree used (-1: none)
  int32_t fse_source[3];      // per SequenceCode: block whose sequences header describes the table
  uint32_t literals_offset;   // Huffman literals go to the chunk's literals scratch here
  uint32_t triples_offset;    // first SequenceTriple slot in the chunk's triples scratch: the
                              // triples of the blocks before this one (set for every block)
  uint32_t triples_capacity;
  // Entropy decoding.
  Status status;
  SectionStage stage;
  LiteralsType literals_type;
  uint8_t rle_byte;
  bool bitstream_exact;       // the sequence bitstream ended exactly with the last sequence
  uint32_t literals_size;
  uint64_t literals_src;      // raw literals: their offset in the input
  uint32_t sequence_count;    // Number_of_Sequences
  // Resolution (sequence_resolution.hpp), in its steps: summarize_block()
  // (made by sequence decoding), place_blocks(), resolve_block().
  RepeatMap repeat_map;       // Block summary (sequence decoding): the block's effect on the repeat offsets
  uint64_t match_bytes;       // Block summary (sequence decoding): sum of its Match_Length
  uint32_t repeat_in[3];      // Block placement: repeat offsets entering the block
  uint64_t output_offset;     // Block placement: exact for every block before the chunk's first error
  Status resolve_status;      // Offset resolution
};

// Per chunk: what the walk found and the later phases' verdicts.
struct ChunkPlan {
  uint32_t frame_count;
  uint32_t block_count;
  uint64_t literals_bytes;    // scratch the walk handed out
  uint64_t triples;
  Status walk_status;
  WalkStop walk_stop;
  bool block_parallel;        // false: the walk ran out of room; decode the chunk with decode_chunk()
  // Resolution.
  Status resolve_status;
  uint32_t valid_blocks;      // blocks before the first error: execution executes these
  uint32_t valid_frames;      // frames complete before it: their checksums are verified
  uint64_t decoded_size;
};

// Room for one chunk's records and scratch.
struct ChunkLimits {
  uint32_t max_frames;
  uint32_t max_blocks;
  uint64_t max_literals_bytes;
  uint64_t max_triples;
};

// Scratch of a chunk of `capacity` output bytes whose frames are valid:
// Huffman literals <= decoded bytes <= capacity, and every sequence makes
// >= 3 bytes. A walk that needs more is of a corrupt or mis-sized chunk
// and falls back to decode_chunk(), which finds its status. Offsets into
// the scratch and match starts in the output are 32-bit: a chunk whose
// capacity is past them falls back as soon as a block has sequences.
ZARRGPU_HD_INLINE ChunkLimits chunk_limits(uint64_t capacity, uint32_t max_frames, uint32_t max_blocks) {
  constexpr uint64_t kOffsetMax = 0xFFFFFFFFull;
  return ChunkLimits{max_frames, max_blocks, capacity < kOffsetMax ? capacity : kOffsetMax,
                     capacity <= kOffsetMax ? capacity / 3 : 0};
}

// A compressed block decodes to at most Block_Maximum_Size bytes and every
// match is >= 3 bytes: resolution meets an error before it needs more triples
// than this (each validated sequence adds >= 3 bytes to a room of <= bsm).
ZARRGPU_HD_INLINE uint32_t triples_bound(uint32_t block_size_max) { return block_size_max / 3 + 1; }

// The walk. Fills plan, frames[0, frame_count) and blocks[0, block_count);
// with null frames/blocks it only counts (the host sizes its buffers so).
// Never reads past src[src_size).
ZARRGPU_HD_INLINE void walk_chunk(const uint8_t* src, size_t src_size, const ChunkLimits& lim, ChunkPlan* plan,
                                  FrameRecord* frames, BlockRecord* blocks) {
  ChunkPlan& pl = *plan;
  pl.frame_count = 0;
  pl.block_count = 0;
  pl.literals_bytes = 0;
  pl.triples = 0;
  pl.walk_status = Status::ok;
  pl.walk_stop = WalkStop::none;
  pl.block_parallel = true;
  pl.resolve_status = Status::ok;
  pl.valid_blocks = 0;
  pl.valid_frames = 0;
  pl.decoded_size = 0;
  auto stop = [&](Status s, WalkStop where) {
    pl.walk_status = s;
    pl.walk_stop = where;
  };
  size_t ip = 0;
  while (ip < src_size) {
    const size_t left = src_size - ip;
    if (left < 4) return stop(Status::truncated_input, WalkStop::frame_header);
    const uint32_t magic = load_le32(src + ip);
    if (is_skippable_magic(magic)) {
      if (left < 8) return stop(Status::truncated_input, WalkStop::frame_header);
      const size_t user = load_le32(src + ip + 4);
      if (user > left - 8) return stop(Status::truncated_input, WalkStop::frame_header);
      ip += 8 + user;
      continue;
    }
    FrameHeader fh;
    const Status st = parse_frame_header(src + ip, left, &fh);
    if (st != Status::ok) return stop(st, WalkStop::frame_header);
    if (fh.dictionary_id != 0) return stop(Status::dictionary_required, WalkStop::frame_header);
    if (pl.frame_count == lim.max_frames) {
      pl.block_parallel = false;
      return;
    }
    ip += fh.header_size;
    const uint32_t f = pl.frame_count++;
    FrameRecord fr{};
    fr.window_size = fh.window_size;
    fr.content_size = fh.content_size;
    fr.block_size_max = fh.block_size_max;
    fr.first_block = pl.block_count;
    fr.has_content_size = fh.has_content_size;
    fr.has_checksum = fh.has_checksum;
    auto store_frame = [&] {
      if (frames) frames[f] = fr;
    };
    // Entropy tables do not cross frames: sources are blocks of this frame.
    int32_t huffman_last = -1;
    int32_t fse_last[3] = {-1, -1, -1};
    for (;;) {
      if (src_size - ip < kBlockHeaderSize) {
        store_frame();
        return stop(Status::truncated_input, WalkStop::block);
      }
      const BlockHeader bh = parse_block_header(src + ip);
      ip += kBlockHeaderSize;
      const size_t content = block_content_size(bh);
      Status bst = Status::ok;
      if (src_size - ip < content) bst = Status::truncated_input;
      else if (bh.type == BlockType::reserved) bst = Status::corrupt_block;
      else if (bh.size > fh.block_size_max) bst = Status::corrupt_block;
      if (bst != Status::ok) {
        store_frame();
        return stop(bst, WalkStop::block);
      }
      if (pl.block_count == lim.max_blocks) {
        pl.block_parallel = false;
        return;
      }
      BlockRecord b{};
      b.src_offset = ip;
      b.size = bh.size;
      b.frame = f;
      b.type = bh.type;
      b.huffman_source = -1;
      b.fse_source[0] = b.fse_source[1] = b.fse_source[2] = -1;
      b.status = Status::ok;
      b.triples_offset = static_cast<uint32_t>(pl.triples);
      const int32_t k = static_cast<int32_t>(pl.block_count);
      if (bh.type == BlockType::compressed) {
        // Only what the sources and the scratch need; every inconsistency
        // left here is an error of entropy decoding for this very block, which comes
        // before anything of the blocks after it.
        const uint8_t* p = src + ip;
        LiteralsHeader lh;
        size_t section = 0;
        bool parsed = parse_literals_header(p, bh.size, &lh) == Status::ok && lh.regenerated_size <= fh.block_size_max;
        if (parsed) {
          const size_t body = bh.size - lh.header_size;
          switch (lh.type) {
            case LiteralsType::raw: parsed = body >= lh.regenerated_size; section = lh.header_size + lh.regenerated_size; break;
            case LiteralsType::rle: parsed = body >= 1; section = lh.header_size + 1; break;
            default: parsed = body >= lh.compressed_size; section = lh.header_size + lh.compressed_size; break;
          }
        }
        if (parsed && (lh.type == LiteralsType::compressed || lh.type == LiteralsType::treeless)) {
          b.huffman_source = lh.type == LiteralsType::compressed ? k : huffman_last;
          if (lh.type == LiteralsType::compressed) huffman_last = k;
          b.literals_offset = static_cast<uint32_t>(pl.literals_bytes);
          pl.literals_bytes += lh.regenerated_size;
        }
        uint32_t count = 0;
        size_t q = 0;
        if (parsed && parse_sequences_count(p + section, bh.size - section, &count, &q) && count > 0 &&
            section + q < bh.size) {
          const uint32_t modes = p[section + q];
          for (uint32_t c = 0; c < 3; ++c) {
            const auto mode = static_cast<TableMode>((modes >> (6 - 2 * c)) & 3u);
            b.fse_source[c] = mode == TableMode::repeat ? fse_last[c] : k;
            fse_last[c] = b.fse_source[c];
          }
          const uint32_t bound = triples_bound(fh.block_size_max);
          b.triples_capacity = count < bound ? count : bound;
          pl.triples += b.triples_capacity;
        }
        if (pl.literals_bytes > lim.max_literals_bytes || pl.triples > lim.max_triples) {
          pl.block_parallel = false;
          return;
        }
      }
      if (blocks) blocks[k] = b;
      ++pl.block_count;
      ++fr.block_count;
      ip += content;
      if (bh.last) break;
    }
    if (fh.has_checksum) {
      fr.checksum_offset = ip;
      if (src_size - ip < 4) {
        store_frame();
        return stop(Status::truncated_input, WalkStop::checksum);
      }
      ip += 4;
    }
    store_frame();
  }
}

}  // namespace zarrgpu::zstd
