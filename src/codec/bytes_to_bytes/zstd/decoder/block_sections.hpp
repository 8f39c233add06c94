// Block-parallel decoding, entropy decoding: the literals section (§3.1.1.3.1) and
// the sequences section (§3.1.1.3.2) of one compressed block, decoded with
// no other block's results: Huffman literals go to the chunk's literals
// scratch, sequences to (Literals_Length, Match_Length, Offset_Value)
// triples with repeat offsets unresolved. A table that the block reuses
// (treeless literals, "repeat" FSE mode) is rebuilt from the earlier
// block's description, which the walk located: a description is tens of
// bytes and rebuilding it is cheaper than waiting for that block.
//
// Three steps, so that each runs on the unit it is parallel over:
//  Table decoding prepare_block_sections() — a group per block: headers, the Huffman
//     and FSE tables, where the streams are; tables and stream places go to
//     the block's BlockEntropy (global scratch on the GPU).
//  Huffman decoding decode_literals_stream() — one thread per Huffman stream.
//  Sequence decoding decode_block_sequences() — one thread per block's sequence bitstream,
//     which also leaves the block's summary for resolution (its repeat-offset
//     map and match bytes, sequence_resolution.hpp's block summary).
// Huffman decoding and sequence decoding are long serial loops: on the GPU a warp runs 32 of them, not
// one (a warp per block left 28 of its lanes waiting).
#pragma once

#include "config.hpp"
#include "frame_walk.hpp"
#include "literals.hpp"
#include "sequence_execution.hpp"
#include "sequences.hpp"
#include "workspace.hpp"

namespace zarrgpu::zstd {

// Finds, in the sequences section at src (a block whose walk recorded it),
// the mode of table `code` and the bytes of its description. False when the
// section does not parse that far.
ZARRGPU_HD_INLINE bool locate_sequence_table(Workspace& ws, const uint8_t* src, size_t size, uint32_t code,
                                             TableMode* mode, size_t* at) {
  uint32_t count = 0;
  size_t p = 0;
  if (!parse_sequences_count(src, size, &count, &p) || count == 0 || p >= size) return false;
  const uint32_t modes = src[p++];
  for (uint32_t c = 0; c <= code; ++c) {
    const auto m = static_cast<TableMode>((modes >> (6 - 2 * c)) & 3u);
    if (c == code) {
      *mode = m;
      *at = p;
      return true;
    }
    if (m == TableMode::rle) {
      p += 1;
    } else if (m == TableMode::compressed) {
      uint32_t symbols = 0, log = 0;
      const size_t used = read_fse_description(src + p, size - p, max_symbol(static_cast<SequenceCode>(c)),
                                               max_log(static_cast<SequenceCode>(c)), ws.scratch.norm, &symbols, &log);
      if (used == 0 || used > size - p) return false;
      p += used;
    }
    if (p > size) return false;
  }
  return false;
}

// The start of a block's sequences section, from its literals header (the
// walk parsed it already; false when it does not parse).
ZARRGPU_HD_INLINE bool sequences_section(const uint8_t* block, size_t size, size_t* at) {
  LiteralsHeader h;
  if (parse_literals_header(block, size, &h) != Status::ok) return false;
  const size_t section = h.header_size + (h.type == LiteralsType::raw   ? h.regenerated_size
                                          : h.type == LiteralsType::rle ? 1u
                                                                        : h.compressed_size);
  if (section > size) return false;
  *at = section;
  return true;
}

// §3.1.1.3.2.1 with tables from their sources: a code in Repeat_Mode
// rebuilds the table the source block described (the walk followed the
// chain). The same statuses as read_sequences_header() on one thread.
// Serial (rank 0).
ZARRGPU_HD_INLINE Status read_sequences_header_from(Workspace& ws, const uint8_t* src, size_t size,
                                                    const uint8_t* chunk, const BlockRecord* blocks,
                                                    const BlockRecord& b, SequencesHeader* h) {
  return read_sequences_header(ws, src, size, h, [&](SequenceCode code) {
    const uint32_t c = static_cast<uint32_t>(code);
    if (b.fse_source[c] < 0) return false;
    const BlockRecord& s = blocks[b.fse_source[c]];
    const uint8_t* block = chunk + s.src_offset;
    size_t section = 0, at = 0;
    TableMode src_mode = TableMode::repeat;
    if (!sequences_section(block, s.size, &section) ||
        !locate_sequence_table(ws, block + section, s.size - section, c, &src_mode, &at) ||
        src_mode == TableMode::repeat) {
      return false;
    }
    return read_sequence_table(ws, code, src_mode, block + section + at, s.size - section - at) >= 0;
  });
}

// The three FSE tables of a block's sequences (§3.1.1.3.2.2) in 2 bytes a
// state (PackedFseEntry), named as in Workspace, so that SequenceDecoder
// reads either: table decoding's hand-over to sequence decoding (BlockEntropy), and sequence
// decoding's copy in
// shared memory on the GPU.
struct PackedSequenceTables {
  uint32_t fse_log[3];  // indexed by SequenceCode
  PackedFseEntry literals_length[1u << kLiteralsLengthLogMax];
  PackedFseEntry match_length[1u << kMatchLengthLogMax];
  PackedFseEntry offset[1u << kOffsetLogMax];
};

// The same tables as sequence decoding reads them where the wave's blocks are long (GPU):
// the length tables in fat entries (fse.hpp: each state's extra-bit count
// in the entry, no second lookup in the chain), the offsets packed (an
// offset code is its own extra-bit count). 4.5 KiB, not 2.5.
struct FatSequenceTables {
  uint32_t fse_log[3];
  FatLengthEntry literals_length[1u << kLiteralsLengthLogMax];
  FatLengthEntry match_length[1u << kMatchLengthLogMax];
  PackedFseEntry offset[1u << kOffsetLogMax];
};

// What table decoding hands to Huffman decoding and sequence decoding for one compressed block:
// its tables and where
// its bitstreams are (offsets in the chunk's input). The FSE tables are
// packed as sequence decoding uses them: every block slot of a wave has a BlockEntropy,
// and unpacked they made a 1 MiB chunk's scratch 3% larger.
struct BlockEntropy {
  HuffmanStreams streams;     // count 0: no Huffman streams to decode
  uint64_t streams_src;       // start of the streams (offsets in `streams` count from here)
  uint64_t sequences_src;     // the sequence bitstream (when the block has sequences)
  uint32_t sequences_size;
  uint32_t huffman_log;
  alignas(16) HuffmanEntry huffman[1u << kHuffmanLogMax];
  PackedSequenceTables sequences;
};

// The three FSE tables of src (a Workspace or PackedSequenceTables,
// fse_log[] set) into dst, packed as needed: their logs and used entries,
// by a group.
template <class G, class Src>
ZARRGPU_HD_INLINE void copy_sequence_tables(G g, PackedSequenceTables& dst, const Src& src) {
  group_copy_disjoint(g, dst.fse_log, src.fse_log, 3);
  auto copy = [g](PackedFseEntry* to, const auto* from, uint32_t log) {
    for (uint32_t u = g.rank(); u < (1u << log); u += G::kSize) store_fse_entry(to[u], from[u], log);
  };
  copy(dst.literals_length, src.literals_length, src.fse_log[0]);
  copy(dst.offset, src.offset, src.fse_log[1]);
  copy(dst.match_length, src.match_length, src.fse_log[2]);
}

// The same into fat tables, from packed ones, with the code tables.
template <class G>
ZARRGPU_HD_INLINE void copy_sequence_tables(G g, FatSequenceTables& dst, const PackedSequenceTables& src,
                                            const LengthCodeTables& codes) {
  group_copy_disjoint(g, dst.fse_log, src.fse_log, 3);
  auto fat = [g](FatLengthEntry* to, const PackedFseEntry* from, uint32_t log, const uint32_t* code) {
    for (uint32_t u = g.rank(); u < (1u << log); u += G::kSize) {
      store_fat_length_entry(to[u], fse_state(from, u, log), code);
    }
  };
  fat(dst.literals_length, src.literals_length, src.fse_log[0], codes.literals_length);
  fat(dst.match_length, src.match_length, src.fse_log[2], codes.match_length);
  group_copy_disjoint(g, dst.offset, src.offset, 1u << src.fse_log[1]);
}

// Table decoding for compressed block b of a chunk (chunk = the chunk's input). Writes
// b's entropy decoding fields and e. Errors are recorded with their stage, never
// returned early to other blocks; an error in the sequences header leaves
// e.streams for Huffman decoding, whose error comes first in the stream and so wins.
template <class G>
ZARRGPU_HD void prepare_block_sections(G g, Workspace& ws, const uint8_t* chunk, const BlockRecord* blocks,
                                       BlockRecord& b, uint32_t block_size_max, BlockEntropy& e) {
  const uint8_t* src = chunk + b.src_offset;
  const size_t size = b.size;
  auto fail = [&](Status s, SectionStage stage) {
    if (g.rank() == 0) {
      b.status = s;
      b.stage = stage;
    }
  };
  if (g.rank() == 0) {
    b.status = Status::ok;
    b.bitstream_exact = false;
    b.literals_size = 0;
    b.sequence_count = 0;
    e.streams.count = 0;
  }
  // Literals section: the checks of decode_literals(), in its order.
  LiteralsHeader h;
  Status st = parse_literals_header(src, size, &h);
  if (st != Status::ok) return fail(st, SectionStage::literals_header);
  if (h.regenerated_size > block_size_max) return fail(Status::corrupt_literals, SectionStage::literals_header);
  size_t section = 0;
  if (h.type == LiteralsType::raw) {
    if (size - h.header_size < h.regenerated_size) return fail(Status::truncated_input, SectionStage::literals_header);
    section = h.header_size + h.regenerated_size;
  } else if (h.type == LiteralsType::rle) {
    if (size - h.header_size < 1) return fail(Status::truncated_input, SectionStage::literals_header);
    section = h.header_size + 1;
  } else {
    if (size - h.header_size < h.compressed_size) {
      return fail(Status::corrupt_literals, SectionStage::literals_header);
    }
    section = h.header_size + h.compressed_size;
  }
  if (g.rank() == 0) {
    b.literals_type = h.type;
    b.literals_size = h.regenerated_size;
    b.literals_src = b.src_offset + h.header_size;
    b.rle_byte = h.type == LiteralsType::rle ? src[h.header_size] : 0;
  }
  if (h.type == LiteralsType::compressed || h.type == LiteralsType::treeless) {
    // The tree: this block's own, or the one the source block described.
    const uint8_t* p = src + h.header_size;
    size_t remaining = h.compressed_size;
    g.sync();
    if (g.rank() == 0) {
      const uint8_t* tree = p;
      size_t tree_size = remaining;
      bool have = true;
      if (h.type == LiteralsType::treeless) {
        LiteralsHeader sh;
        const BlockRecord* s = b.huffman_source >= 0 ? &blocks[b.huffman_source] : nullptr;
        have = s != nullptr && parse_literals_header(chunk + s->src_offset, s->size, &sh) == Status::ok &&
               sh.type == LiteralsType::compressed && sh.header_size + sh.compressed_size <= s->size;
        if (have) {
          tree = chunk + s->src_offset + sh.header_size;
          tree_size = sh.compressed_size;
        }
      }
      uint32_t log = 0;
      const size_t n = have ? read_huffman_table(tree, tree_size, ws.scratch.huffman, ws.huffman, &log) : 0;
      ws.huffman_log = log;
      // Treeless literals use the tree but not its bytes; a missing tree is 1 here, an error below.
      ws.shared_value = n == 0 ? 0u : h.type == LiteralsType::compressed ? static_cast<uint32_t>(n) : ~0u;
    }
    g.sync();
    const uint32_t used = ws.shared_value;
    if (used == 0) return fail(Status::corrupt_huffman_table, SectionStage::literals_data);
    if (h.type == LiteralsType::compressed) {
      p += used;
      remaining -= used;
    }
    HuffmanStreams streams;
    if (!locate_huffman_streams(h, p, remaining, &streams)) {
      return fail(Status::corrupt_literals, SectionStage::literals_data);
    }
    group_copy_disjoint(g, e.huffman, ws.huffman, 1u << ws.huffman_log);
    if (g.rank() == 0) {
      e.huffman_log = ws.huffman_log;
      e.streams_src = static_cast<uint64_t>(p - chunk);
      e.streams = streams;
    }
  }

  // Sequences section: the checks of decode_compressed_block(), in its order.
  const uint8_t* seq_src = src + section;
  const size_t seq_size = size - section;
  SequencesHeader sh{0, 0};
  uint32_t code = 0;
  g.sync();
  if (g.rank() == 0) {
    // The FSE tables are built below by the whole group.
    ws.defer_fse_builds = true;
    ws.scratch.deferred.count = 0;
    code = static_cast<uint32_t>(read_sequences_header_from(ws, seq_src, seq_size, chunk, blocks, b, &sh));
    ws.defer_fse_builds = false;
    if (code == static_cast<uint32_t>(Status::ok)) {
      b.sequence_count = sh.count;
      WindowBitReader br;
      if (sh.count == 0) {
        b.bitstream_exact = true;
      } else if (!br.init(seq_src + sh.header_size, seq_size - sh.header_size)) {
        code = static_cast<uint32_t>(Status::corrupt_sequences);  // SequenceDecoder::init() fails so
      } else {
        e.sequences_src = static_cast<uint64_t>(seq_src + sh.header_size - chunk);
        e.sequences_size = static_cast<uint32_t>(seq_size - sh.header_size);
      }
    }
  }
  st = static_cast<Status>(g.broadcast(code));
  if (st != Status::ok) return fail(st, SectionStage::sequences);
  const uint32_t count = g.broadcast(sh.count);
  if (count != 0) {
    g.sync();
    DeferredFseBuilds& d = ws.scratch.deferred;
    for (uint32_t k = 0; k < d.count; ++k) {
      // Cannot fail: read_sequence_table() recorded only counts that fill their table.
      build_fse_table_group(g, d.norm[k], d.symbols[k], d.log[k], fse_table(ws, d.code[k]), d.build);
    }
    copy_sequence_tables(g, e.sequences, ws);
  }
  g.sync();
}

// Huffman decoding: Huffman stream s of block b, after table decoding (one thread), with e.huffman
// or a copy of it at `table`, through `reader` (a RingBitReader with its
// ring, or the default). The error of a bad stream is the block's, at the
// literals stage: it comes before anything table decoding found in the sequences
// section.
template <class Reader = WindowBitReader>
ZARRGPU_HD_INLINE void decode_literals_stream(const BlockEntropy& e, const HuffmanEntry* table, const uint8_t* chunk,
                                              BlockRecord& b, uint32_t s, uint8_t* literals_scratch,
                                              Reader reader = Reader{}) {
  if (s >= e.streams.count) return;
  const HuffmanStreams& st = e.streams;
  if (!decode_huffman_stream(table, e.huffman_log, chunk + e.streams_src + st.offset[s], st.size[s],
                             literals_scratch + b.literals_offset + s * st.segment, st.symbols[s], reader)) {
    // Every failing stream of the block writes the same values.
    b.status = Status::corrupt_literals;
    b.stage = SectionStage::literals_data;
    b.sequence_count = 0;
    b.bitstream_exact = false;
  }
}

// A field another thread may write meanwhile, read once (on the GPU a
// volatile load: the compiler may not read it again later).
template <class T>
ZARRGPU_HD_INLINE T read_once(const T& x) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile T*>(&x);
#else
  return x;
#endif
}

// The sequences sequence decoding decodes in block b (table decoding set up their tables): its count,
// or 0 when it has none or failed. On the GPU Huffman decoding runs in the same launch
// and zeroes the count of a block whose literals fail
// (decode_literals_stream): each field is read once, and only that count
// is used. With two reads (nvcc made them in sequence decoding, one for the test and one
// for the loop bound) the second could see 0, and the loop's count - 1
// wrapped: a loop past the block's triples, an illegal address in the
// corrupt-input GPU test.
ZARRGPU_HD_INLINE uint32_t sequences_to_decode(const BlockRecord& b) {
  const uint32_t count = read_once(b.sequence_count);
  return read_once(b.status) == Status::ok ? count : 0u;
}
ZARRGPU_HD_INLINE bool has_sequences_to_decode(const BlockRecord& b) { return sequences_to_decode(b) != 0; }

// Sequence decoding: block b's sequences to triples[b.triples_offset, + min(count,
// b.triples_capacity)), after Huffman decoding (one thread), with e.sequences or a copy
// of them at `tables` (a Workspace, PackedSequenceTables or FatSequenceTables; length codes
// looked up in `codes` when given), through `reader` (the GPU's
// LookaheadRingBitReader with its ring, or the default).
// It also sets b.repeat_map and b.match_bytes, resolution's block summary of
// those triples (summarize_block() computes the same from the triples, by
// a group): the map is exact whatever offsets enter the block, so the lane
// that decodes the sequences in order can make it on the way, and resolution
// need not read the triples once more for it (block summary was 3-4% of the level-19
// kernel time, its own two launches). A block that fails in entropy decoding (here,
// or in Huffman decoding meanwhile) gets some summary: block placement is exact only up to a chunk's
// first error, and offset resolution and chunk verdict use nothing past it.
// With `checkpoints` (the block's own, sequence_resolution.hpp's
// checkpoint_base()), it also stores the state before every
// kCheckpointSequences-th triple it writes, for offset resolution's ranks; offset resolution reads them
// only for a block that entropy decoding left valid.
template <class Tables, class Reader = WindowBitReader>
ZARRGPU_HD_INLINE void decode_block_sequences(const BlockEntropy& e, const Tables& tables,
                                              const uint8_t* chunk, BlockRecord& b, SequenceTriple* triples,
                                              const LengthCodeTables* codes = nullptr, Reader reader = Reader{},
                                              ResolutionCheckpoint* checkpoints = nullptr) {
  ResolutionRun state{repeat_identity(), 0, 0};  // of the triples written so far
  auto summarized = [&b, &state]() {
    b.repeat_map = state.map;
    b.match_bytes = state.matches;
  };
  const uint32_t count = sequences_to_decode(b);
  if (count == 0) return summarized();
  BasicSequenceDecoder<Reader> dec;
  dec.br = reader;
  if (!dec.init(tables, chunk + e.sequences_src, e.sequences_size)) {  // Table decoding checked that it starts
    b.status = Status::corrupt_sequences;
    b.stage = SectionStage::sequences;
    return summarized();
  }
  // Past triples_capacity resolution fails before it reads them (triples_bound()).
  const uint32_t n = count < b.triples_capacity ? count : b.triples_capacity;
  // The last sequence updates no state: peeled, so that the loop tests
  // nothing for it. The triples by a running pointer: no index to widen
  // and scale each time.
  SequenceTriple* out = triples + b.triples_offset;
  SequenceTriple* const updating_end = out + (n < count ? n : count - 1);
  auto take = [&state](const SequenceTriple& t) { extend_run(state, t.offset, t.literals_length, t.match_length); };
  ResolutionCheckpoint* cp = checkpoints;
  auto checkpoint = [&]() { *cp++ = state; };
  // Spans of kCheckpointSequences, a checkpoint before each: the test for
  // one is the outer loop's, not every sequence's.
  while (out != updating_end) {
    if (cp != nullptr) checkpoint();
    const uint32_t left = static_cast<uint32_t>(updating_end - out);
    SequenceTriple* const span_end = out + (left < kCheckpointSequences ? left : kCheckpointSequences);
    for (; out != span_end; ++out) {
      SequenceTriple t;
      dec.next(tables, false, &t.offset, &t.match_length, &t.literals_length, codes);
      *out = t;
      take(t);
    }
  }
  if (n == count) {
    // The peeled last sequence starts a span of its own when count - 1 is a multiple.
    if (cp != nullptr && (count - 1) % kCheckpointSequences == 0) checkpoint();
    SequenceTriple t;
    dec.next(tables, true, &t.offset, &t.match_length, &t.literals_length, codes);
    *out = t;
    take(t);
  }
  dec.br.finish();
  b.bitstream_exact = n == count && dec.br.remaining_bits() == 0;
  summarized();
}

// Entropy decoding of one block, its three steps in a row (the host's order; the
// GPU runs each step over all blocks of a wave).
template <class G>
ZARRGPU_HD void decode_block_sections(G g, Workspace& ws, BlockEntropy& e, const uint8_t* chunk,
                                      const BlockRecord* blocks, BlockRecord& b, uint32_t block_size_max,
                                      uint8_t* literals_scratch, SequenceTriple* triples) {
  prepare_block_sections(g, ws, chunk, blocks, b, block_size_max, e);
  for (uint32_t s = g.rank(); s < 4; s += G::kSize) decode_literals_stream(e, e.huffman, chunk, b, s, literals_scratch);
  g.sync();
  if (g.rank() == 0) decode_block_sequences(e, e.sequences, chunk, b, triples);
  g.sync();
}

}  // namespace zarrgpu::zstd
