// Per-chunk decoder state that outlives one block: the entropy tables that
// "repeat" and "treeless" modes reuse (RFC 8878 §3.1.1.3.1.1, §3.1.1.3.2.1),
// plus scratch. On the GPU it lives in shared memory, one per warp.
#pragma once

#include "config.hpp"
#include "fse.hpp"
#include "huffman.hpp"
#include "repeat_offsets.hpp"

namespace zarrgpu::zstd {

inline constexpr uint32_t kSequenceBatch = 32;

// A batch of validated sequences laid out for execution by the whole group
// at once (sequence_execution.hpp). Positions are relative to the output
// position and the literals position where the batch starts.
struct SequenceBatch {
  uint32_t offset[kSequenceBatch];
  uint32_t literals_end[kSequenceBatch];   // literals of sequences 0..i
  uint32_t matches_end[kSequenceBatch];    // match bytes of sequences 0..i
  // Output position of sequence i's literals (2i) and of its match (2i + 1):
  // non-decreasing, so a position's owner is found by binary search.
  uint32_t segment_start[2 * kSequenceBatch];
};

// Resolution (sequence_resolution.hpp): what each rank hands to the others
// about its run of a block's sequences. A group has at most this many ranks.
inline constexpr uint32_t kResolutionRanks = 32;
struct ResolutionRun {
  RepeatMap map;      // of the run's sequences, then (after the scan) of all before the run
  uint64_t literals;  // Literals_Length of the run, then before it
  uint64_t matches;   // Match_Length likewise
};
// The run extended by one sequence (its Offset_Value, before resolution).
ZARRGPU_HD_INLINE void extend_run(ResolutionRun& r, uint32_t offset_value, uint32_t literals_length,
                                  uint32_t match_length) {
  repeat_step(r.map, offset_value, literals_length);
  r.literals += literals_length;
  r.matches += match_length;
}
// Sequence decoding's state at every kCheckpointSequences-th sequence of a block: the
// ResolutionRun of the sequences before it, from the block's start, so
// that offset resolution's ranks start their runs there instead of scanning the runs
// first (sequence_resolution.hpp's resolve_block). A chunk's checkpoints:
// block k's from checkpoint_base(b, k) on, one per started
// kCheckpointSequences of its triples (triples_capacity at most),
// checkpoints_per_chunk() in all.
inline constexpr uint32_t kCheckpointSequences = 32;
using ResolutionCheckpoint = ResolutionRun;
// Blocks' triples are handed out in order, each from the previous one's
// end (frame_walk.hpp), so floor(offset / K) + k leaves each block
// ceil(capacity / K) entries before the next block's base.
ZARRGPU_HD_INLINE uint64_t checkpoints_per_chunk(uint64_t max_triples, uint32_t max_blocks) {
  return max_triples / kCheckpointSequences + max_blocks + 1;
}

struct ResolutionError {
  uint32_t index;     // first sequence of the rank's run that fails (~0u: none)
  uint32_t status;
};
// What resolution's ranks hand each other, for groups of at most kRanks: all
// the shared memory the GPU's block summary and offset resolution kernels hold per warp (1 KiB, not a
// Workspace's 11: more warps per SM, and the rest of the SM's 256 KiB left
// to L1 for the triples), or per thread block where a thread block is the
// group (long blocks, gpu/kernel_block_parallel.cuh).
template <uint32_t kRanks>
union BasicResolutionScratch {
  static constexpr uint32_t kSize = kRanks;
  ResolutionRun runs[kRanks];
  ResolutionError errors[kRanks];
};
using ResolutionScratch = BasicResolutionScratch<kResolutionRanks>;

// The FSE tables a sequences header asks for, built later by the whole
// group (block_sections.hpp's table decoding: build_fse_table_group) instead of by
// rank 0 while it parses (read_sequence_table with defer_fse_builds).
// `parsing` is the scratch's norm[], where the descriptions are read.
struct DeferredFseBuilds {
  int16_t parsing[64];
  uint32_t count;
  uint32_t code[3];
  uint32_t symbols[3];
  uint32_t log[3];
  int16_t norm[3][kFseBuildSymbols];
  FseBuildScratch build;
};

// Which table a slot holds, so that predefined tables are not rebuilt.
enum class TableKind : uint8_t { none = 0, predefined = 1, built = 2 };

struct Workspace {
  HuffmanEntry huffman[1u << kHuffmanLogMax];
  FseEntry literals_length[1u << kLiteralsLengthLogMax];
  FseEntry match_length[1u << kMatchLengthLogMax];
  FseEntry offset[1u << kOffsetLogMax];
  union {
    HuffmanScratch huffman;
    int16_t norm[64];
    ResolutionScratch resolution;
    DeferredFseBuilds deferred;
  } scratch;
  SequenceBatch batch;
  uint32_t huffman_log;
  uint32_t fse_log[3];            // indexed by SequenceCode
  TableKind fse_kind[3];
  bool fse_repeatable[3];         // a table was set up earlier in this frame
  bool huffman_valid;
  bool defer_fse_builds;          // read_sequence_table records builds in scratch.deferred
  // Values rank 0 hands to the group.
  uint32_t shared_status;
  uint32_t shared_value;
};

static_assert(sizeof(DeferredFseBuilds) <= sizeof(HuffmanScratch), "deferred builds fit the scratch as it is");

ZARRGPU_HD_INLINE FseEntry* fse_table(Workspace& ws, uint32_t code) {
  return code == 0 ? ws.literals_length : code == 1 ? ws.offset : ws.match_length;
}

}  // namespace zarrgpu::zstd
