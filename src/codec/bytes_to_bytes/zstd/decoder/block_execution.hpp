// Block-parallel decoding, phase D: the copies of one block (§3.1.1.4) into
// its place in the output, which phase C fixed, from validated sequences
// with resolved offsets. Matches may read the output of earlier blocks of
// the frame: a caller runs a frame's blocks in order, or (Deps) makes each
// batch wait until the bytes it reads are written, so that a frame's blocks
// run as a pipeline.
#pragma once

#include "config.hpp"
#include "frame_walk.hpp"
#include "sequence_execution.hpp"
#include "workspace.hpp"
#include "xxhash64.hpp"

namespace zarrgpu::zstd {

// How execute_block() meets the blocks before it. Both hooks run on rank 0
// only. wait(lowest, end): the bytes [lowest, end) of the output, all before
// the block, must be final before the batch about to run reads them.
// publish(n): the block's first n output bytes are final (every rank's
// stores are done when it is called). The host runs blocks in order and
// needs neither; the GPU's warp-per-block execution passes progress counters.
struct InOrderBlocks {
  ZARRGPU_HD_INLINE void wait(uint64_t /*lowest*/, uint64_t /*end*/) {}
  ZARRGPU_HD_INLINE void publish(uint64_t /*bytes*/) {}
};

// Batches between two intermediate publish() calls: each costs a fence.
inline constexpr uint32_t kPublishEveryBatches = 4;

// Executes block b (validated by phase C) into out[b.output_offset, ...).
template <class G, class Deps = InOrderBlocks>
ZARRGPU_HD void execute_block(G g, Workspace& ws, const uint8_t* chunk, const BlockRecord& b,
                              const uint8_t* literals_scratch, const SequenceTriple* triples, uint8_t* out,
                              Deps&& deps = InOrderBlocks{}) {
  const uint8_t* src = chunk + b.src_offset;
  if (b.type == BlockType::raw || b.type == BlockType::rle) {
    if (b.type == BlockType::raw) group_copy_disjoint(g, out + b.output_offset, src, b.size);
    else group_fill(g, out + b.output_offset, src[0], b.size);
    g.sync();
    if (g.rank() == 0) deps.publish(b.size);
    return;
  }
  Literals lit{};
  lit.size = b.literals_size;
  lit.rle = b.literals_type == LiteralsType::rle;
  lit.rle_byte = b.rle_byte;
  lit.in_output = false;  // raw literals in the input, Huffman literals in the scratch: apart from the output
  lit.data = b.literals_type == LiteralsType::raw ? chunk + b.literals_src
             : lit.rle                            ? nullptr
                                                  : literals_scratch + b.literals_offset;
  size_t op = b.output_offset;
  size_t lit_pos = 0;
  const SequenceTriple* t = triples + b.triples_offset;
  uint32_t batches = 0;
  for (uint32_t done = 0; done < b.sequence_count; ++batches) {
    const uint32_t left = b.sequence_count - done;
    const uint32_t n = left < kSequenceBatch ? left : kSequenceBatch;
    g.sync();  // every rank is done with the previous batch
    if (g.rank() == 0) {
      if (batches > 0 && batches % kPublishEveryBatches == 0) deps.publish(op - b.output_offset);
      SequenceBatch& sb = ws.batch;
      uint32_t batch_literals = 0, batch_matches = 0;
      // Output bytes before the block that the batch's matches read: a
      // match byte repeats a byte at or after its match's source, and
      // before the match itself (§3.1.1.4).
      uint64_t lowest = ~uint64_t{0}, end = 0;
      for (uint32_t i = 0; i < n; ++i) {
        const SequenceTriple s = t[done + i];
        sb.offset[i] = s.offset;
        sb.segment_start[2 * i] = batch_literals + batch_matches;
        batch_literals += s.literals_length;
        sb.segment_start[2 * i + 1] = batch_literals + batch_matches;
        const uint64_t from = op + sb.segment_start[2 * i + 1] - s.offset;
        if (s.match_length > 0 && from < b.output_offset) {
          const uint64_t to = from + s.match_length < b.output_offset ? from + s.match_length : b.output_offset;
          if (from < lowest) lowest = from;
          if (to > end) end = to;
        }
        batch_matches += s.match_length;
        sb.literals_end[i] = batch_literals;
        sb.matches_end[i] = batch_matches;
      }
      if (end > 0) deps.wait(lowest, end);
    }
    g.sync();
    execute_sequences(g, ws.batch, n, out, &op, lit, &lit_pos);
    done += n;
  }
  copy_literals(g, out + op, lit, lit_pos, lit.size - lit_pos);
  g.sync();
  if (g.rank() == 0) deps.publish(op + (lit.size - lit_pos) - b.output_offset);
}

// After phase D: the checksums of the frames that phase C completed, in
// order (§3.1.1 Content_Checksum), then phase C's status. The chunk's final status.
template <class G>
ZARRGPU_HD Status finish_chunk(G g, const ChunkPlan& plan, const FrameRecord* frames, const uint8_t* chunk, const uint8_t* out, bool verify_checksum) {
  if (verify_checksum) {
    for (uint32_t f = 0; f < plan.valid_frames; ++f) {
      const FrameRecord& fr = frames[f];
      if (!fr.has_checksum) continue;
      const uint64_t h = xxh64_group(g, out + fr.output_start, fr.output_size);
      if (static_cast<uint32_t>(h) != load_le32(chunk + fr.checksum_offset)) return Status::checksum_mismatch;
    }
  }
  return plan.resolve_status;
}

}  // namespace zarrgpu::zstd
