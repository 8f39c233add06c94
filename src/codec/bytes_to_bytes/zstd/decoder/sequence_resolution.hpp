// Block-parallel decoding, phase C: one thread per chunk goes through the
// chunk's frames and blocks in stream order with the results of phases A
// and B, and does what needs the blocks before: the output offset of every
// block (a running sum of decoded sizes), repeat offsets (§3.1.1.5, carried
// from block to block), and every check that depends on where the output
// stands — in decode_chunk()'s order, so that statuses are the same. It is
// plain integer work over 12-byte triples, the only serial part left.
#pragma once

#include "block.hpp"
#include "config.hpp"
#include "frame_walk.hpp"
#include "sequences.hpp"

namespace zarrgpu::zstd {

// Validates one compressed block that starts at output offset op (frame
// starts at frame_start) and resolves its offsets in place; *op advances.
ZARRGPU_HD_INLINE Status resolve_block(const FrameRecord& fr, const BlockRecord& b, SequenceTriple* triples,
                                       size_t capacity, size_t frame_start, size_t* op_io, uint32_t rep[3]) {
  const size_t op_start = *op_io;
  const size_t cap_left = capacity - op_start;
  const bool capacity_bound = cap_left < fr.block_size_max;
  const size_t room = capacity_bound ? cap_left : fr.block_size_max;
  const Status room_error = capacity_bound ? Status::output_too_small : Status::corrupt_block;
  if (b.status != Status::ok && b.stage == SectionStage::literals_header) return b.status;
  const bool huffman = b.literals_type == LiteralsType::compressed || b.literals_type == LiteralsType::treeless;
  if (huffman && b.literals_size > room) return Status::output_too_small;
  if (b.status != Status::ok && b.stage == SectionStage::literals_data) return b.status;
  if (b.literals_size > room) return room_error;
  if (b.status != Status::ok) return b.status;

  const size_t lit_size = b.literals_size;
  const size_t match_room = room - lit_size;
  size_t matched = 0, cur_lit = 0, cur_op = op_start;
  SequenceTriple* t = triples + b.triples_offset;
  for (uint32_t i = 0; i < b.sequence_count; ++i) {
    // triples_bound(): an error comes before i reaches triples_capacity.
    if (i >= b.triples_capacity) return Status::corrupt_sequences;
    const uint32_t ll = t[i].literals_length, ml = t[i].match_length;
    const uint32_t offset = resolve_offset(t[i].offset, ll, rep);
    if (ll > lit_size - cur_lit) return Status::corrupt_sequences;
    cur_lit += ll;
    cur_op += ll;
    if (ml > match_room - matched) return room_error;
    if (offset == 0 || offset > cur_op - frame_start || offset > fr.window_size) return Status::offset_out_of_range;
    matched += ml;
    cur_op += ml;
    t[i].offset = offset;
  }
  if (b.sequence_count > 0 && !b.bitstream_exact) return Status::corrupt_sequences;
  *op_io = op_start + lit_size + matched;
  return Status::ok;
}

// Phase C for a chunk: sets every valid block's output_offset and every
// frame's output_start, and plan.resolve_status, valid_blocks, valid_frames,
// decoded_size. The status is final unless a checksum of a valid frame fails.
ZARRGPU_HD_INLINE void resolve_chunk(ChunkPlan& plan, FrameRecord* frames, BlockRecord* blocks,
                                     SequenceTriple* triples, size_t capacity) {
  size_t op = 0;
  plan.valid_blocks = 0;
  plan.valid_frames = 0;
  plan.decoded_size = 0;
  auto finish = [&](Status s) { plan.resolve_status = s; };
  for (uint32_t f = 0; f < plan.frame_count; ++f) {
    FrameRecord& fr = frames[f];
    const bool last = f + 1 == plan.frame_count;
    if (fr.has_content_size && fr.content_size > capacity - op) return finish(Status::output_too_small);
    fr.output_start = op;
    uint32_t rep[3] = {1, 4, 8};
    for (uint32_t i = 0; i < fr.block_count; ++i) {
      BlockRecord& b = blocks[fr.first_block + i];
      b.output_offset = op;
      if (b.type == BlockType::compressed) {
        const Status st = resolve_block(fr, b, triples, capacity, fr.output_start, &op, rep);
        if (st != Status::ok) return finish(st);
      } else {
        if (b.size > capacity - op) return finish(Status::output_too_small);
        op += b.size;
      }
      ++plan.valid_blocks;
    }
    if (last && plan.walk_stop == WalkStop::block) return finish(plan.walk_status);
    fr.output_size = op - fr.output_start;
    if (fr.has_content_size && fr.output_size != fr.content_size) return finish(Status::content_size_mismatch);
    if (last && plan.walk_stop == WalkStop::checksum) return finish(plan.walk_status);
    ++plan.valid_frames;
  }
  if (plan.walk_status != Status::ok) return finish(plan.walk_status);
  plan.decoded_size = op;
  finish(Status::ok);
}

}  // namespace zarrgpu::zstd
