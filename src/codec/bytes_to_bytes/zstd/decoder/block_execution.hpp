// Block-parallel decoding, phase D: the copies of each block (§3.1.1.4)
// into its place in the output, which phase C fixed, from validated
// sequences with resolved offsets. Matches may read the output of earlier
// blocks of the frame, so D runs in two steps with nothing to wait for:
//  D1 write_block_literals() — every block of the chunk, in any order: raw
//     and RLE blocks whole, and every literal of a compressed block. It also
//     turns each sequence's Literals_Length into its match's start.
//  D2 execute_block_matches() — every compressed block, in any order, after
//     D1 of all of them: the match bytes, batch after batch. A match byte
//     whose source lies inside the block but before the batch is final (the
//     block's earlier batches wrote it); one whose source lies in an earlier
//     block is followed back through that block's matches (EarlierBlocks)
//     until it lands on a literal or a raw or RLE block, final since D1.
// So every block runs as soon as a group is free for it, and no group waits
// for another.
#pragma once

#include "config.hpp"
#include "frame_walk.hpp"
#include "sequence_execution.hpp"
#include "workspace.hpp"
#include "xxhash64.hpp"

namespace zarrgpu::zstd {

// The literals of a block as phase B left them.
ZARRGPU_HD_INLINE Literals block_literals(const uint8_t* chunk, const BlockRecord& b, const uint8_t* literals_scratch) {
  Literals lit{};
  lit.size = b.literals_size;
  lit.rle = b.literals_type == LiteralsType::rle;
  lit.rle_byte = b.rle_byte;
  lit.in_output = false;  // raw literals in the input, Huffman literals in the scratch: apart from the output
  lit.data = b.literals_type == LiteralsType::raw ? chunk + b.literals_src
             : lit.rle                            ? nullptr
                                                  : literals_scratch + b.literals_offset;
  return lit;
}

// D1 for block b (validated by phase C).
template <class G>
ZARRGPU_HD void write_block_literals(G g, SequenceBatch& sb, const uint8_t* chunk, const BlockRecord& b,
                                     const uint8_t* literals_scratch, SequenceTriple* triples, uint8_t* out) {
  uint8_t* const block_out = out + b.output_offset;
  if (b.type == BlockType::raw) {
    group_copy_disjoint(g, block_out, chunk + b.src_offset, b.size);
    return;
  }
  if (b.type == BlockType::rle) {
    group_fill(g, block_out, chunk[b.src_offset], b.size);
    return;
  }
  const Literals lit = block_literals(chunk, b, literals_scratch);
  size_t op = 0, lit_pos = 0;  // in the block's output and its literals
  SequenceTriple* t = triples + b.triples_offset;
  for (uint32_t done = 0; done < b.sequence_count;) {
    const uint32_t left = b.sequence_count - done;
    const uint32_t n = left < kSequenceBatch ? left : kSequenceBatch;
    g.sync();  // every rank is done with the previous batch
    if (g.rank() == 0) {
      uint32_t literals = 0, matches = 0;
      for (uint32_t i = 0; i < n; ++i) {
        SequenceTriple& s = t[done + i];
        literals += s.literals_length;
        s.match_start = static_cast<uint32_t>(op) + literals + matches;
        matches += s.match_length;
        sb.literals_end[i] = literals;
        sb.matches_end[i] = matches;
      }
    }
    g.sync();
    place_batch_literals(g, sb, n, block_out + op, lit, lit_pos);
    op += sb.literals_end[n - 1] + sb.matches_end[n - 1];
    lit_pos += sb.literals_end[n - 1];
    done += n;
  }
  copy_literals(g, block_out + op, lit, lit_pos, lit.size - lit_pos);
}

// Phase D2's view of the blocks before block k of a chunk, all through D1:
// maps an output position before block k to one that holds the same byte
// and is final already — a literal, or a byte of a raw or RLE block. Each
// step goes to the source of the match that wrote the byte, which lies
// strictly before it, so the walk ends (at the frame's start at the latest:
// phase C checked every offset against it).
struct EarlierBlocks {
  const BlockRecord* blocks;
  const SequenceTriple* triples;  // D1's form: match starts
  uint32_t k;

  ZARRGPU_HD_INLINE uint64_t final_position(uint64_t p) const {
    uint32_t j = k;
    for (;;) {
      while (blocks[j].output_offset > p) --j;
      const BlockRecord& b = blocks[j];
      if (b.type != BlockType::compressed || b.sequence_count == 0) return p;
      const uint32_t rel = static_cast<uint32_t>(p - b.output_offset);
      const SequenceTriple* t = triples + b.triples_offset;
      // The last sequence whose match starts at or before rel.
      uint32_t lo = 0, hi = b.sequence_count;
      if (t[0].match_start > rel) return p;  // the first sequence's literals
      while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) >> 1;
        if (t[mid].match_start <= rel) lo = mid; else hi = mid;
      }
      const SequenceTriple s = t[lo];
      if (rel - s.match_start >= s.match_length) return p;  // the literals after that match
      p = static_cast<uint64_t>(static_cast<int64_t>(b.output_offset) + match_source(s.match_start, s.offset, rel - s.match_start));
    }
  }
};

// execute_batch_matches()'s resolver in D2: a byte before the batch is
// final when it lies in the block (an earlier batch wrote it), else
// EarlierBlocks finds where it is final.
struct BeforeBatch {
  const EarlierBlocks& earlier;
  uint64_t base;         // the batch's first output byte
  uint64_t block_start;

  ZARRGPU_HD_INLINE int64_t operator()(int64_t q) const {
    const uint64_t p = static_cast<uint64_t>(static_cast<int64_t>(base) + q);
    if (p >= block_start) return q;
    return static_cast<int64_t>(earlier.final_position(p)) - static_cast<int64_t>(base);
  }
};

// D2 for compressed block k of `blocks` (validated by phase C; D1 done for
// every block of the chunk).
template <class G>
ZARRGPU_HD void execute_block_matches(G g, SequenceBatch& sb, const BlockRecord* blocks, uint32_t k,
                                      const SequenceTriple* triples, uint8_t* out) {
  const BlockRecord& b = blocks[k];
  if (b.type != BlockType::compressed) return;
  const SequenceTriple* t = triples + b.triples_offset;
  const EarlierBlocks earlier{blocks, triples, k};
  uint32_t prev_end = 0;  // rank 0: where the match of the sequence before the batch ended
  for (uint32_t done = 0; done < b.sequence_count;) {
    const uint32_t left = b.sequence_count - done;
    const uint32_t n = left < kSequenceBatch ? left : kSequenceBatch;
    g.sync();  // every rank is done with the previous batch
    if (g.rank() == 0) {
      uint32_t literals = 0, matches = 0;
      for (uint32_t i = 0; i < n; ++i) {
        const SequenceTriple s = t[done + i];
        sb.offset[i] = s.offset;
        sb.segment_start[2 * i] = literals + matches;
        literals += s.match_start - prev_end;
        sb.segment_start[2 * i + 1] = literals + matches;
        matches += s.match_length;
        prev_end = s.match_start + s.match_length;
        sb.literals_end[i] = literals;
        sb.matches_end[i] = matches;
      }
    }
    g.sync();
    // The batch starts with the first sequence's literals.
    const uint64_t base = b.output_offset + t[done].match_start - sb.literals_end[0];
    execute_batch_matches(g, sb, n, out + base, BeforeBatch{earlier, base, b.output_offset});
    done += n;
  }
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
