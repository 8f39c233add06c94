// Finite State Entropy of RFC 8878 §4.1: table descriptions (§4.1.1), the
// decoding table built from them, and the predefined distributions of the
// sequence codes (§3.1.1.3.2.2).
#pragma once

#include "bit_reader.hpp"
#include "config.hpp"

namespace zarrgpu::zstd {

// One decoding state: emit `symbol`, then the next state is base + nb_bits read bits.
// Aligned as one 32-bit word, so that a lookup is one load, not two.
struct alignas(4) FseEntry {
  uint16_t base;
  uint8_t nb_bits;
  uint8_t symbol;
};

// A state's fields as the decoders use them.
struct FseState {
  uint32_t symbol;
  uint32_t nb_bits;
  uint32_t base;
};

// A cell's bits to read and next-state base, from the next-state counter it
// was given when its table was built (§4.1.1): nb_bits = log - highbit(next),
// base = (next << nb_bits) - 2^log. The table builders and the packed form's
// lookups derive them alike.
struct FseCell {
  uint32_t nb_bits;
  uint32_t base;
};
ZARRGPU_HD_INLINE FseCell fse_cell(uint32_t next, uint32_t log) {
  const uint32_t nb = log - highbit32(next);
  return FseCell{nb, (next << nb) - (1u << log)};
}

ZARRGPU_HD_INLINE FseState fse_state(const FseEntry* table, uint32_t state, uint32_t /*log*/) {
  const FseEntry e = table[state];
  return FseState{e.symbol, e.nb_bits, e.base};
}

// The same state in 2 bytes: the symbol (< 64) and the next-state counter
// the table was built from (< 2^(log+1) <= 1024), from which
// build_fse_table() derived the other two fields (fse_cell()). Three more instructions
// per lookup, for half the shared memory: the GPU's sequence decoding keeps twice the
// blocks' tables, and so decodes twice the blocks, per SM.
struct PackedFseEntry {
  uint16_t v;
};

ZARRGPU_HD_INLINE PackedFseEntry pack_fse_entry(const FseEntry& e, uint32_t log) {
  const uint32_t next = (uint32_t{e.base} + (1u << log)) >> e.nb_bits;
  return PackedFseEntry{static_cast<uint16_t>(e.symbol | (next << 6))};
}

// One state into a packed table, from a table of either form.
ZARRGPU_HD_INLINE void store_fse_entry(PackedFseEntry& to, const FseEntry& e, uint32_t log) {
  to = pack_fse_entry(e, log);
}
ZARRGPU_HD_INLINE void store_fse_entry(PackedFseEntry& to, const PackedFseEntry& e, uint32_t /*log*/) { to = e; }

ZARRGPU_HD_INLINE FseState fse_state(const PackedFseEntry* table, uint32_t state, uint32_t log) {
  const uint32_t v = table[state].v;
  const FseCell cell = fse_cell(v >> 6, log);
  return FseState{v & 63u, cell.nb_bits, cell.base};
}

// Reads the normalized probabilities of an FSE table description (§4.1.1).
// norm receives max_symbol + 1 values (-1 is the "less than 1" probability);
// *symbols is the number of symbols described, *log the Accuracy_Log.
// Returns the bytes used, or 0 when the description is invalid.
ZARRGPU_HD_INLINE size_t read_fse_description(const uint8_t* src, size_t size, uint32_t max_symbol,
                                              uint32_t max_log, int16_t* norm, uint32_t* symbols,
                                              uint32_t* log) {
  if (size == 0) return 0;
  ForwardBitReader br(src, size);
  const uint32_t accuracy_log = br.read(4) + 5;
  if (accuracy_log > max_log) return 0;
  int32_t remaining = (1 << accuracy_log) + 1;
  int32_t threshold = 1 << accuracy_log;
  uint32_t nb_bits = accuracy_log + 1;
  uint32_t symbol = 0;
  bool previous_zero = false;
  while (remaining > 1 && symbol <= max_symbol) {
    if (previous_zero) {
      // A zero probability is followed by 2-bit repeat flags; 3 means "3 more, and another flag".
      uint32_t run_end = symbol;
      for (;;) {
        const uint32_t flag = br.read(2);
        run_end += flag;
        if (flag != 3) break;
        if (run_end > max_symbol || br.overrun()) return 0;
      }
      if (run_end > max_symbol) return 0;
      while (symbol < run_end) norm[symbol++] = 0;
    }
    // Values below `low_limit` use nb_bits - 1 bits, the others nb_bits (§4.1.1).
    const int32_t low_limit = (2 * threshold - 1) - remaining;
    int32_t value = static_cast<int32_t>(br.peek(nb_bits - 1));
    if (value < low_limit) {
      br.skip(nb_bits - 1);
    } else {
      value = static_cast<int32_t>(br.peek(nb_bits));
      if (value >= threshold) value -= low_limit;
      br.skip(nb_bits);
    }
    const int32_t probability = value - 1;
    remaining -= probability < 0 ? -probability : probability;
    norm[symbol++] = static_cast<int16_t>(probability);
    previous_zero = probability == 0;
    if (remaining < 1) return 0;
    while (remaining < threshold) {
      --nb_bits;
      threshold >>= 1;
    }
    if (br.overrun()) return 0;
  }
  if (remaining != 1 || br.overrun()) return 0;
  *symbols = symbol;
  *log = accuracy_log;
  return br.bytes_consumed();
}

// Builds the decoding table of §4.1.1 ("FSE decoding table") from normalized
// counts. norm is overwritten (it becomes the per-symbol next-state counter).
// Returns false when the counts do not fill the table exactly.
ZARRGPU_HD_INLINE bool build_fse_table(int16_t* norm, uint32_t symbols, uint32_t log, FseEntry* table) {
  const uint32_t table_size = 1u << log;
  const uint32_t mask = table_size - 1;
  int32_t high = static_cast<int32_t>(table_size) - 1;
  // "Less than 1" symbols take the last cells, one each.
  for (uint32_t s = 0; s < symbols; ++s) {
    if (norm[s] == -1) {
      if (high < 0) return false;
      table[high--].symbol = static_cast<uint8_t>(s);
    }
  }
  // Spread the others with the fixed step; it is odd, so every cell is visited.
  const uint32_t step = (table_size >> 1) + (table_size >> 3) + 3;
  uint32_t position = 0;
  uint32_t placed = 0;
  for (uint32_t s = 0; s < symbols; ++s) {
    for (int32_t i = 0; i < norm[s]; ++i) {
      if (++placed > table_size) return false;
      table[position].symbol = static_cast<uint8_t>(s);
      do {
        position = (position + step) & mask;
      } while (static_cast<int32_t>(position) > high);
    }
  }
  if (position != 0) return false;
  // Next-state counters start at each symbol's probability ("less than 1" counts as 1).
  for (uint32_t s = 0; s < symbols; ++s) norm[s] = norm[s] == -1 ? 1 : norm[s];
  for (uint32_t u = 0; u < table_size; ++u) {
    const uint32_t s = table[u].symbol;
    const FseCell cell = fse_cell(static_cast<uint32_t>(norm[s]++), log);
    table[u].nb_bits = static_cast<uint8_t>(cell.nb_bits);
    table[u].base = static_cast<uint16_t>(cell.base);
  }
  return true;
}

// What build_fse_table_group's ranks share: per symbol, the first of its
// cells in spread order and its next-state counter.
inline constexpr uint32_t kFseBuildSymbols = 64;  // the sequence codes' 53 and the Huffman weights' 13
struct FseBuildScratch {
  uint16_t start[kFseBuildSymbols + 1];
  uint16_t next[kFseBuildSymbols];
  int32_t high;  // the last cell spread over; "less than 1" symbols above it
  bool ok;
};

// build_fse_table() by a group (group.hpp; every rank calls it): the same
// table for counts that fill it exactly (every described or predefined
// distribution does), else false. Serial, a cell's next-state counter waits
// on the cell before it (a shared-memory read and write per cell, 3 x 512
// cells a level-19 block); here the ranks take cells G::kSize at a time.
// The spread: cell i of the step's cycle is (i * step) & mask, and the
// cells at or below `high` take the symbols in order, so rank r finds its
// symbol from the count of such cells before it (a ballot) and the
// symbols' starts. The next states: a cell's counter is its symbol's
// counter plus the cells of that symbol before it in the same G::kSize
// (match_any). symbols <= kFseBuildSymbols.
template <class G, class Entry>
ZARRGPU_HD_INLINE bool build_fse_table_group(G g, const int16_t* norm, uint32_t symbols, uint32_t log, Entry* table,
                                             FseBuildScratch& sc) {
  const uint32_t table_size = 1u << log;
  const uint32_t mask = table_size - 1;
  if (g.rank() == 0) {
    int32_t high = static_cast<int32_t>(table_size) - 1;
    uint32_t cells = 0;
    bool ok = symbols <= kFseBuildSymbols;
    for (uint32_t s = 0; ok && s < symbols; ++s) {
      sc.start[s] = static_cast<uint16_t>(cells);
      if (norm[s] == -1) {
        if (high < 0) ok = false;
        else table[high--].symbol = static_cast<uint8_t>(s);
        sc.next[s] = 1;
      } else {
        cells += static_cast<uint32_t>(norm[s] > 0 ? norm[s] : 0);
        sc.next[s] = static_cast<uint16_t>(norm[s] > 0 ? norm[s] : 0);
      }
    }
    if (ok) sc.start[symbols] = static_cast<uint16_t>(cells);
    sc.high = high;
    sc.ok = ok && static_cast<int64_t>(cells) == static_cast<int64_t>(high) + 1;
  }
  g.sync();
  if (!sc.ok) return false;
  const int32_t high = sc.high;
  const uint32_t step = (table_size >> 1) + (table_size >> 3) + 3;
  const uint32_t below = (1u << g.rank()) - 1u;  // ranks before this one
  uint32_t placed = 0;
  for (uint32_t i0 = 0; i0 < table_size; i0 += G::kSize) {
    const uint32_t i = i0 + g.rank();
    const uint32_t position = (i * step) & mask;
    const bool spread = i < table_size && static_cast<int32_t>(position) <= high;
    const uint32_t votes = g.ballot(spread);
    if (spread) {
      const uint32_t k = placed + popcount32(votes & below);
      uint32_t lo = 0, hi = symbols;  // the symbol s with start[s] <= k < start[s + 1]
      while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (sc.start[mid] <= k) lo = mid;
        else hi = mid;
      }
      table[position].symbol = static_cast<uint8_t>(lo);
    }
    placed += popcount32(votes);
  }
  g.sync();
  for (uint32_t u0 = 0; u0 < table_size; u0 += G::kSize) {
    const uint32_t u = u0 + g.rank();
    const uint32_t s = u < table_size ? table[u].symbol : ~0u;
    const uint32_t peers = g.match_any(s);
    const uint32_t next = u < table_size ? sc.next[s] + popcount32(peers & below) : 0;
    g.sync();
    if (u < table_size && (peers & below) == 0) sc.next[s] = static_cast<uint16_t>(sc.next[s] + popcount32(peers));
    g.sync();
    if (u < table_size) {
      const FseCell cell = fse_cell(next, log);
      table[u].nb_bits = static_cast<uint8_t>(cell.nb_bits);
      table[u].base = static_cast<uint16_t>(cell.base);
    }
  }
  g.sync();
  return true;
}

// A one-state table that always emits `symbol` and reads no bits (RLE mode).
ZARRGPU_HD_INLINE void build_fse_rle_table(uint8_t symbol, FseEntry* table) {
  table[0] = FseEntry{0, 0, symbol};
}

// §3.1.1.3.2.2 default distributions, as code so that device code needs no
// global constant arrays.
enum class SequenceCode : uint32_t { literals_length = 0, offset = 1, match_length = 2 };

ZARRGPU_HD_INLINE int16_t predefined_probability(SequenceCode code, uint32_t s) {
  switch (code) {
    case SequenceCode::literals_length:
      // 4,3,2,2,2,2,2,2,2,2,2,2,2,1,1,1,2,2,2,2,2,2,2,2,2,3,2,1,1,1,1,1,-1,-1,-1,-1
      if (s == 0) return 4;
      if (s == 1 || s == 25) return 3;
      if (s >= 32) return -1;
      if ((s >= 13 && s <= 15) || s >= 27) return 1;
      return 2;
    case SequenceCode::match_length:
      // 1,4,3,2,2,2,2,2,2,1 x 37 ... ,-1 x 7
      if (s == 1) return 4;
      if (s == 2) return 3;
      if (s >= 3 && s <= 8) return 2;
      if (s >= 46) return -1;
      return 1;
    case SequenceCode::offset:
      // 1,1,1,1,1,1,2,2,2,1 x 15,-1 x 5
      if (s >= 6 && s <= 8) return 2;
      if (s >= 24) return -1;
      return 1;
  }
  return 0;
}

ZARRGPU_HD_INLINE uint32_t predefined_symbols(SequenceCode code) {
  return code == SequenceCode::literals_length ? 36u : code == SequenceCode::match_length ? 53u : 29u;
}
ZARRGPU_HD_INLINE uint32_t predefined_log(SequenceCode code) {
  return code == SequenceCode::offset ? 5u : 6u;
}
ZARRGPU_HD_INLINE uint32_t max_symbol(SequenceCode code) {
  return code == SequenceCode::literals_length ? kLiteralsLengthMaxSymbol
         : code == SequenceCode::match_length  ? kMatchLengthMaxSymbol
                                               : kOffsetMaxSymbol;
}
ZARRGPU_HD_INLINE uint32_t max_log(SequenceCode code) {
  return code == SequenceCode::literals_length ? kLiteralsLengthLogMax
         : code == SequenceCode::match_length  ? kMatchLengthLogMax
                                               : kOffsetLogMax;
}

// §3.1.1.3.2.1.1 Literals_Length_Code -> (Baseline, Number_of_Bits).
ZARRGPU_HD_INLINE void literals_length_code(uint32_t c, uint32_t* baseline, uint32_t* bits) {
  if (c < 16) { *baseline = c; *bits = 0; }
  else if (c < 20) { *baseline = 16 + 2 * (c - 16); *bits = 1; }
  else if (c < 22) { *baseline = 24 + 4 * (c - 20); *bits = 2; }
  else if (c < 24) { *baseline = 32 + 8 * (c - 22); *bits = 3; }
  else if (c == 24) { *baseline = 48; *bits = 4; }
  else { *bits = c - 19; *baseline = 1u << *bits; }
}

// §3.1.1.3.2.1.1 Match_Length_Code -> (Baseline, Number_of_Bits).
ZARRGPU_HD_INLINE void match_length_code(uint32_t c, uint32_t* baseline, uint32_t* bits) {
  if (c < 32) { *baseline = c + 3; *bits = 0; }
  else if (c < 36) { *baseline = 35 + 2 * (c - 32); *bits = 1; }
  else if (c < 38) { *baseline = 43 + 4 * (c - 36); *bits = 2; }
  else if (c < 40) { *baseline = 51 + 8 * (c - 38); *bits = 3; }
  else if (c < 42) { *baseline = 67 + 16 * (c - 40); *bits = 4; }
  else if (c == 42) { *baseline = 99; *bits = 5; }
  else { *bits = c - 36; *baseline = 3 + (1u << *bits); }
}

// Both code tables as (Baseline << 5) | Number_of_Bits, for decoders that
// would rather look a code up than branch on it (a warp of lanes, each on
// its own block, would take every branch).
inline constexpr uint32_t kLiteralsLengthCodes = 36;
inline constexpr uint32_t kMatchLengthCodes = 53;
static_assert(kLiteralsLengthCodes == kLiteralsLengthMaxSymbol + 1 && kMatchLengthCodes == kMatchLengthMaxSymbol + 1,
              "a table symbol indexes the code tables");
struct LengthCodeTables {
  uint32_t literals_length[kLiteralsLengthCodes];
  uint32_t match_length[kMatchLengthCodes];
};

ZARRGPU_HD_INLINE uint32_t length_code_entry(uint32_t baseline, uint32_t bits) { return (baseline << 5) | bits; }
ZARRGPU_HD_INLINE uint32_t length_code_baseline(uint32_t entry) { return entry >> 5; }
ZARRGPU_HD_INLINE uint32_t length_code_bits(uint32_t entry) { return entry & 31u; }

template <class G>
ZARRGPU_HD_INLINE void fill_length_code_tables(G g, LengthCodeTables& t) {
  for (uint32_t c = g.rank(); c < kLiteralsLengthCodes + kMatchLengthCodes; c += G::kSize) {
    uint32_t base = 0, bits = 0;
    if (c < kLiteralsLengthCodes) {
      literals_length_code(c, &base, &bits);
      t.literals_length[c] = length_code_entry(base, bits);
    } else {
      match_length_code(c - kLiteralsLengthCodes, &base, &bits);
      t.match_length[c - kLiteralsLengthCodes] = length_code_entry(base, bits);
    }
  }
}

// A literals or match length state in 4 bytes with its length code's
// extra-bit count (the "fat" entry): the bits to read (byte 0), the code's
// extra bits (byte 1), the symbol (bits 16-21) and the next-state base
// (bits 23-31, < 2^9). A packed entry's sequence step looks its symbol up
// in LengthCodeTables for the extra-bit count, a second shared-memory load
// in the serial chain of sequence decoding (the bit position needs it), after the unpack
// of the cell (fse_cell()); a fat entry has both in one load, and leaves
// only the code's base value (for the decoded length, not the chain) to
// look up.
struct FatLengthEntry {
  uint32_t v;
};

// Entry e (symbol, the cell's bits and base) of a length table, with the
// extra bits `codes` (LengthCodeTables' literals_length or match_length) gives its symbol.
ZARRGPU_HD_INLINE void store_fat_length_entry(FatLengthEntry& to, const FseState& e, const uint32_t* codes) {
  to.v = e.nb_bits | (length_code_bits(codes[e.symbol]) << 8) | (e.symbol << 16) | (e.base << 23);
}

ZARRGPU_HD_INLINE FseState fse_state(const FatLengthEntry* table, uint32_t state, uint32_t /*log*/) {
  const uint32_t v = table[state].v;
  return FseState{(v >> 16) & 63u, v & 0xffu, v >> 23};
}

// The extra-bit count of a fat entry's length code.
ZARRGPU_HD_INLINE uint32_t fat_extra_bits(FatLengthEntry e) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(e.v, 0u, 0x4441u);  // byte 1 alone: one instruction in sequence decoding's chain, not two
#else
  return (e.v >> 8) & 0xffu;
#endif
}

}  // namespace zarrgpu::zstd
