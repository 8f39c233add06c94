// Sequences section of RFC 8878 §3.1.1.3.2: its header, the three FSE tables
// in their four modes, and the decoding of (literals length, match length,
// offset) triples from the backward bitstream, with repeat offsets.
#pragma once

#include "bit_reader.hpp"
#include "config.hpp"
#include "fse.hpp"
#include "workspace.hpp"

namespace zarrgpu::zstd {

enum class TableMode : uint32_t { predefined = 0, rle = 1, compressed = 2, repeat = 3 };

struct SequencesHeader {
  uint32_t count;
  uint32_t header_size;     // Number_of_Sequences, modes byte and table descriptions
};

// Table c from the counts in ws.scratch.norm, or, with ws.defer_fse_builds,
// those counts recorded for the group to build (the counts of a description
// or a predefined distribution always fill the table, so a deferred build
// cannot fail where this one would not).
ZARRGPU_HD_INLINE bool build_or_defer_fse_table(Workspace& ws, uint32_t c, uint32_t symbols, uint32_t log) {
  if (!ws.defer_fse_builds) return build_fse_table(ws.scratch.norm, symbols, log, fse_table(ws, c));
  DeferredFseBuilds& d = ws.scratch.deferred;
  if (d.count >= 3 || symbols > kFseBuildSymbols) return false;
  for (uint32_t s = 0; s < symbols; ++s) d.norm[d.count][s] = ws.scratch.norm[s];  // `parsing`
  d.code[d.count] = c;
  d.symbols[d.count] = symbols;
  d.log[d.count] = log;
  ++d.count;
  return true;
}

// One table of the three (§3.1.1.3.2.2). Returns bytes used, or -1.
ZARRGPU_HD_INLINE int64_t read_sequence_table(Workspace& ws, SequenceCode code, TableMode mode,
                                              const uint8_t* src, size_t size) {
  const uint32_t c = static_cast<uint32_t>(code);
  FseEntry* table = fse_table(ws, c);
  switch (mode) {
    case TableMode::predefined: {
      if (ws.fse_kind[c] != TableKind::predefined) {
        const uint32_t n = predefined_symbols(code);
        for (uint32_t s = 0; s < n; ++s) ws.scratch.norm[s] = predefined_probability(code, s);
        build_or_defer_fse_table(ws, c, n, predefined_log(code));
        ws.fse_kind[c] = TableKind::predefined;
        ws.fse_log[c] = predefined_log(code);
      }
      return 0;
    }
    case TableMode::rle: {
      if (size < 1 || src[0] > max_symbol(code)) return -1;
      build_fse_rle_table(src[0], table);
      ws.fse_kind[c] = TableKind::built;
      ws.fse_log[c] = 0;
      return 1;
    }
    case TableMode::compressed: {
      uint32_t symbols = 0, log = 0;
      const size_t used =
          read_fse_description(src, size, max_symbol(code), max_log(code), ws.scratch.norm, &symbols, &log);
      if (used == 0 || used > size) return -1;
      ws.fse_kind[c] = TableKind::none;
      if (!build_or_defer_fse_table(ws, c, symbols, log)) return -1;
      ws.fse_kind[c] = TableKind::built;
      ws.fse_log[c] = log;
      return static_cast<int64_t>(used);
    }
    case TableMode::repeat:
      return ws.fse_repeatable[c] && ws.fse_kind[c] != TableKind::none ? 0 : -1;
  }
  return -1;
}

// §3.1.1.3.2.1 Number_of_Sequences: 1 to 3 bytes. *p receives its size.
ZARRGPU_HD_INLINE bool parse_sequences_count(const uint8_t* src, size_t size, uint32_t* count, size_t* p) {
  if (size < 1) return false;
  const uint32_t b0 = src[0];
  if (b0 < 128) {
    *count = b0;
    *p = 1;
  } else if (b0 < 255) {
    if (size < 2) return false;
    *count = ((b0 - 128) << 8) + src[1];
    *p = 2;
  } else {
    if (size < 3) return false;
    *count = src[1] + (static_cast<uint32_t>(src[2]) << 8) + 0x7F00u;
    *p = 3;
  }
  return true;
}

// Parses §3.1.1.3.2.1 and builds the tables in ws. Serial (one thread).
// repeat(code) sets up the table of a code in Repeat_Mode (false: there is
// none to repeat); the block-parallel decoder rebuilds it from the block
// that described it (block_sections.hpp).
template <class Repeat>
ZARRGPU_HD_INLINE Status read_sequences_header(Workspace& ws, const uint8_t* src, size_t size, SequencesHeader* h,
                                               Repeat&& repeat) {
  size_t p = 0;
  if (!parse_sequences_count(src, size, &h->count, &p)) return Status::corrupt_sequences;
  if (h->count == 0) {
    // No modes byte; the block must end here.
    h->header_size = static_cast<uint32_t>(p);
    return p == size ? Status::ok : Status::corrupt_sequences;
  }
  if (p >= size) return Status::corrupt_sequences;
  // Bits 1-0 are reserved; libzstd ignores them, and so do we, to accept what it accepts.
  const uint32_t modes = src[p++];
  // Order in the stream: literals lengths (bits 7-6), offsets (5-4), match lengths (3-2).
  for (uint32_t c = 0; c < 3; ++c) {
    const auto mode = static_cast<TableMode>((modes >> (6 - 2 * c)) & 3u);
    const auto code = static_cast<SequenceCode>(c);
    if (mode == TableMode::repeat) {
      if (!repeat(code)) return Status::corrupt_fse_table;
    } else {
      const int64_t used = read_sequence_table(ws, code, mode, src + p, size - p);
      if (used < 0) return Status::corrupt_fse_table;
      p += static_cast<size_t>(used);
    }
    ws.fse_repeatable[c] = true;
  }
  h->header_size = static_cast<uint32_t>(p);
  return Status::ok;
}

// The same, repeating the tables an earlier block of the frame left in ws.
ZARRGPU_HD_INLINE Status read_sequences_header(Workspace& ws, const uint8_t* src, size_t size, SequencesHeader* h) {
  return read_sequences_header(ws, src, size, h, [&ws](SequenceCode code) {
    return read_sequence_table(ws, code, TableMode::repeat, nullptr, 0) == 0;
  });
}

// A literals or match length state of a sequence (its cell: symbol, bits
// to read, next-state base) with its code's base value and extra-bit count
// (§3.1.1.3.2.1.1), from an entry of any table form; the code looked up in
// `codes` (LengthCodeTables' literals_length or match_length) with
// kLookup, else from literals_length_code() or match_length_code() (kMatch).
struct LengthStep {
  FseState cell;
  uint32_t base;
  uint32_t bits;
};

template <bool kMatch, bool kLookup>
ZARRGPU_HD_INLINE void length_code(uint32_t symbol, const uint32_t* codes, uint32_t* base, uint32_t* bits) {
  if (kLookup) {
    const uint32_t c = codes[symbol];  // symbols of a valid table are < the code counts (fse.hpp's max_symbol())
    *base = length_code_baseline(c);
    *bits = length_code_bits(c);
  } else if (kMatch) {
    match_length_code(symbol, base, bits);
  } else {
    literals_length_code(symbol, base, bits);
  }
}

template <bool kMatch, bool kLookup, class Entry>
ZARRGPU_HD_INLINE LengthStep length_step(const Entry* table, uint32_t state, uint32_t log, const uint32_t* codes) {
  LengthStep s;
  s.cell = fse_state(table, state, log);
  length_code<kMatch, kLookup>(s.cell.symbol, codes, &s.base, &s.bits);
  return s;
}

// A fat entry (fse.hpp) holds the extra-bit count: only the base value is looked up.
template <bool kMatch, bool kLookup>
ZARRGPU_HD_INLINE LengthStep length_step(const FatLengthEntry* table, uint32_t state, uint32_t /*log*/,
                                         const uint32_t* codes) {
  LengthStep s;
  s.cell = fse_state(table, state, 0);
  uint32_t unused = 0;
  length_code<kMatch, kLookup>(s.cell.symbol, codes, &s.base, &unused);
  s.bits = fat_extra_bits(table[state]);
  return s;
}

// State of the sequence bitstream (§3.1.1.3.2.2): one thread decodes it.
// Tables: a Workspace, or entropy decoding's PackedSequenceTables or
// FatSequenceTables (block_sections.hpp): the three tables and fse_log[],
// by the same names.
// Reader: WindowBitReader, or RingBitReader or LookaheadRingBitReader (one
// skip a sequence, window_top_at) with its ring set.
template <class Reader>
struct BasicSequenceDecoder {
  Reader br;
  uint32_t state[3];  // indexed by SequenceCode
  uint32_t log[3];    // the tables' fse_log[], kept in registers

  template <class Tables>
  ZARRGPU_HD_INLINE bool init(const Tables& ws, const uint8_t* src, size_t size) {
    if (!br.init(src, size)) return false;
    // Initial states: literals lengths, offsets, match lengths (<= 27 bits).
    const uint64_t w = br.window();
    uint32_t k = 0;
    for (uint32_t c = 0; c < 3; ++c) {
      log[c] = ws.fse_log[c];
      state[c] = window_bits(w, k, log[c]);
      k += log[c];
    }
    br.skip(k);
    return true;
  }

  // Decodes the raw values of one sequence: Offset_Value (before repeat
  // resolution), match length and literals length; updates the states unless
  // it is the last sequence. Length codes from `codes` when given.
  template <class Tables>
  ZARRGPU_HD_INLINE void next(const Tables& ws, bool last, uint32_t* offset_value, uint32_t* match_length,
                              uint32_t* literals_length, const LengthCodeTables* codes = nullptr) {
    LengthStep lls, mls;
    if (codes != nullptr) {
      lls = length_step<false, true>(ws.literals_length, state[0], log[0], codes->literals_length);
      mls = length_step<true, true>(ws.match_length, state[2], log[2], codes->match_length);
    } else {
      lls = length_step<false, false>(ws.literals_length, state[0], log[0], nullptr);
      mls = length_step<true, false>(ws.match_length, state[2], log[2], nullptr);
    }
    const FseState of = fse_state(ws.offset, state[1], log[1]);
    const FseState &ll = lls.cell, &ml = mls.cell;
    const uint32_t ll_base = lls.base, ll_bits = lls.bits, ml_base = mls.base, ml_bits = mls.bits;
    // Extra bits in stream order: offset (<= 31), match length and literals
    // length (<= 16 each): one window. Offset codes are <= 31, so the match
    // length's bits start in the window's upper half; so does every state
    // field below (table logs are <= 9).
    const uint32_t of_code = of.symbol;
    const uint64_t w = br.window_by_halves();
    *offset_value = one_then_top_bits(static_cast<uint32_t>(w >> 32), of_code);
    // The two lengths' extra bits (<= 16 each) lie in the 32 bits after
    // the offset's.
    const uint32_t lengths = window_word_low(w, of_code);
    *match_length = ml_base + top_bits(lengths, ml_bits);
    *literals_length = ll_base + top_bits(lengths << ml_bits, ll_bits);
    const uint32_t extra = of_code + ml_bits + ll_bits;
    // State updates in order: literals lengths, match lengths, offsets
    // (<= 9 + 9 + 8 bits: one 32-bit window, x).
    auto update_states = [&](uint32_t x) {
      state[0] = ll.base + top_bits(x, ll.nb_bits);
      state[2] = ml.base + top_bits(x << ll.nb_bits, ml.nb_bits);
      state[1] = of.base + top_bits(x << (ll.nb_bits + ml.nb_bits), of.nb_bits);
    };
    const uint32_t state_bits = ll.nb_bits + ml.nb_bits + of.nb_bits;
    if constexpr (requires { br.window_top_at(0u); }) {
      // The state bits past the extra bits (<= 63) in the reader's three
      // words: one skip a sequence (LookaheadRingBitReader).
      if (!last) update_states(br.window_top_at(extra));
      br.skip(last ? extra : extra + state_bits);
    } else {
      br.skip(extra);
      if (!last) {
        update_states(br.window_top());
        br.skip(state_bits);
      }
    }
  }
};

using SequenceDecoder = BasicSequenceDecoder<WindowBitReader>;

// §3.1.1.5 Repeat offsets. Returns the offset to copy from, 0 when invalid.
ZARRGPU_HD_INLINE uint32_t resolve_offset(uint32_t offset_value, uint32_t literals_length, uint32_t rep[3]) {
  if (offset_value > 3) {
    const uint32_t offset = offset_value - 3;
    rep[2] = rep[1];
    rep[1] = rep[0];
    rep[0] = offset;
    return offset;
  }
  // With no literals the repeat index shifts by one, and index 3 means rep[0] - 1.
  const uint32_t index = offset_value - (literals_length != 0 ? 1u : 0u);
  if (index == 0) return rep[0];
  // Constant indices only: keeps rep[] in registers on the GPU.
  const uint32_t offset = index == 1 ? rep[1] : index == 2 ? rep[2] : rep[0] - 1;
  if (index != 1) rep[2] = rep[1];
  rep[1] = rep[0];
  rep[0] = offset;
  return offset;
}

}  // namespace zarrgpu::zstd
