// Per-chunk decoder state that outlives one block: the entropy tables that
// "repeat" and "treeless" modes reuse (RFC 8878 §3.1.1.3.1.1, §3.1.1.3.2.1),
// plus scratch. On the GPU it lives in shared memory, one per warp.
#pragma once

#include "config.hpp"
#include "fse.hpp"
#include "huffman.hpp"

namespace zarrgpu::zstd {

struct Sequence {
  uint32_t literals_length;
  uint32_t match_length;
  uint32_t offset;
};

inline constexpr uint32_t kSequenceBatch = 32;

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
  } scratch;
  Sequence batch[kSequenceBatch];
  uint32_t huffman_log;
  uint32_t fse_log[3];            // indexed by SequenceCode
  TableKind fse_kind[3];
  bool fse_repeatable[3];         // a table was set up earlier in this frame
  bool huffman_valid;
  // Values rank 0 hands to the group.
  uint32_t shared_status;
  uint32_t shared_value;
};

ZARRGPU_HD_INLINE FseEntry* fse_table(Workspace& ws, uint32_t code) {
  return code == 0 ? ws.literals_length : code == 1 ? ws.offset : ws.match_length;
}

}  // namespace zarrgpu::zstd
