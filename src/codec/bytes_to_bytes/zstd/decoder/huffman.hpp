// Huffman coding of literals, RFC 8878 §4.2: the tree description (§4.2.1),
// the decoding table and the decoding of one stream (§4.2.2).
#pragma once

#include "bit_reader.hpp"
#include "config.hpp"
#include "fse.hpp"

namespace zarrgpu::zstd {

struct HuffmanEntry {
  uint8_t symbol;
  uint8_t nb_bits;
};

// Scratch for reading a tree description.
struct HuffmanScratch {
  uint8_t weights[256];
  int16_t norm[256];
  FseEntry weight_table[64];  // Accuracy_Log of the weights is at most 6
  uint32_t rank_count[kHuffmanLogMax + 2];
  uint32_t rank_start[kHuffmanLogMax + 2];
};

inline constexpr uint32_t kHuffmanWeightLogMax = 6;
inline constexpr uint32_t kHuffmanWeightsMax = 255;

// §4.2.1.2: weights compressed with FSE, two interleaved states sharing one table.
// Returns the number of weights, or 0 when invalid.
ZARRGPU_HD_INLINE uint32_t read_fse_weights(const uint8_t* src, size_t size, HuffmanScratch& s) {
  uint32_t symbols = 0, log = 0;
  const size_t used = read_fse_description(src, size, 255, kHuffmanWeightLogMax, s.norm, &symbols, &log);
  if (used == 0 || used > size) return 0;
  if (!build_fse_table(s.norm, symbols, log, s.weight_table)) return 0;
  WindowBitReader br;
  if (!br.init(src + used, size - used)) return 0;
  uint32_t state1 = br.read(log);
  uint32_t state2 = br.read(log);
  uint32_t n = 0;
  // Alternate the states until the stream overflows; the state that did not
  // read last then emits one more symbol. Every iteration reads at most
  // 12 bits and adds at least one weight, so the loop ends by count.
  for (;;) {
    if (n + 2 > kHuffmanWeightsMax) return 0;
    FseEntry e = s.weight_table[state1];
    s.weights[n++] = e.symbol;
    state1 = e.base + br.read(e.nb_bits);
    if (br.remaining_bits() < 0) {
      s.weights[n++] = s.weight_table[state2].symbol;
      break;
    }
    if (n + 2 > kHuffmanWeightsMax) return 0;
    e = s.weight_table[state2];
    s.weights[n++] = e.symbol;
    state2 = e.base + br.read(e.nb_bits);
    if (br.remaining_bits() < 0) {
      s.weights[n++] = s.weight_table[state1].symbol;
      break;
    }
  }
  return n;
}

// Reads a Huffman tree description (§4.2.1) and builds the decoding table:
// entry i of the 2^log entries is the symbol whose code is the top `log`
// bits i, and its code length. Returns the description's size in bytes, or 0.
ZARRGPU_HD_INLINE size_t read_huffman_table(const uint8_t* src, size_t size, HuffmanScratch& s,
                                            HuffmanEntry* table, uint32_t* table_log) {
  if (size == 0) return 0;
  const uint32_t header = src[0];
  uint32_t n = 0;
  size_t used = 0;
  if (header >= 128) {
    // Direct representation: 4-bit weights, high nibble first.
    n = header - 127;
    used = 1 + (n + 1) / 2;
    if (used > size) return 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t b = src[1 + i / 2];
      s.weights[i] = (i & 1) ? (b & 15) : (b >> 4);
    }
  } else {
    used = 1 + header;
    if (used > size) return 0;
    n = read_fse_weights(src + 1, header, s);
    if (n == 0) return 0;
  }
  // The last symbol's weight is implied: the weights must sum to a power of two.
  // Indexed tables live in the scratch (shared memory on the GPU), not in local memory.
  uint32_t* rank_count = s.rank_count;
  for (uint32_t w = 0; w < kHuffmanLogMax + 2; ++w) rank_count[w] = 0;
  uint32_t total = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t w = s.weights[i];
    if (w > kHuffmanLogMax) return 0;
    rank_count[w]++;
    total += (1u << w) >> 1;
  }
  if (total == 0) return 0;
  const uint32_t log = highbit32(total) + 1;
  if (log > kHuffmanLogMax) return 0;
  const uint32_t rest = (1u << log) - total;
  if (rest != (1u << highbit32(rest))) return 0;
  const uint32_t last_weight = highbit32(rest) + 1;
  s.weights[n] = static_cast<uint8_t>(last_weight);
  rank_count[last_weight]++;
  ++n;
  if (rank_count[1] < 2 || (rank_count[1] & 1)) return 0;  // a full prefix code pairs the longest codes

  // Lowest weights (longest codes) take the first cells, in symbol order.
  uint32_t* rank_start = s.rank_start;
  uint32_t start = 0;
  for (uint32_t w = 1; w <= log; ++w) {
    rank_start[w] = start;
    start += rank_count[w] << (w - 1);
  }
  for (uint32_t sym = 0; sym < n; ++sym) {
    const uint32_t w = s.weights[sym];
    if (w == 0) continue;
    const uint32_t len = 1u << (w - 1);
    const HuffmanEntry e{static_cast<uint8_t>(sym), static_cast<uint8_t>(log + 1 - w)};
    for (uint32_t i = 0; i < len; ++i) table[rank_start[w] + i] = e;
    rank_start[w] += len;
  }
  *table_log = log;
  return used;
}

// Decodes one Huffman stream (§4.2.2) of exactly `count` symbols; the stream
// must be consumed to its last bit. Four symbols per 64-bit window, two per
// 32-bit part of it (a symbol has at most 11 bits): 32-bit shifts are one
// instruction on the GPU, 64-bit ones several, and a lane per stream runs
// this chain at the latency of its instructions. Symbols are stored four at
// a time as one 32-bit word once dst is aligned (byte stores from 32 lanes
// to 32 places cost a memory transaction each).
template <class Reader = WindowBitReader>
ZARRGPU_HD_INLINE bool decode_huffman_stream(const HuffmanEntry* table, uint32_t log, const uint8_t* src,
                                             size_t size, uint8_t* dst, size_t count, Reader br = Reader{}) {
  if (!br.init(src, size)) return false;
  const uint32_t drop = 32 - log;
  auto one = [&]() {
    const HuffmanEntry e = table[static_cast<uint32_t>(br.window() >> 32) >> drop];
    br.skip(e.nb_bits);
    return e.symbol;
  };
  size_t i = 0;
#if defined(__CUDA_ARCH__)
  const size_t head = (4 - (reinterpret_cast<uintptr_t>(dst) & 3u)) & 3u;
#else
  constexpr size_t head = 0;
#endif
  for (; i < head && i < count; ++i) dst[i] = one();
  for (; i + 4 <= count; i += 4) {
    const uint64_t w = br.window();
    uint32_t top = static_cast<uint32_t>(w >> 32);
    const HuffmanEntry e0 = table[top >> drop];
    top <<= e0.nb_bits;
    const HuffmanEntry e1 = table[top >> drop];
    uint32_t k = e0.nb_bits + e1.nb_bits;  // <= 22
    top = window_word_low(w, k);
    const HuffmanEntry e2 = table[top >> drop];
    top <<= e2.nb_bits;
    const HuffmanEntry e3 = table[top >> drop];
    k += e2.nb_bits + e3.nb_bits;
    const uint32_t word = e0.symbol | (static_cast<uint32_t>(e1.symbol) << 8) |
                          (static_cast<uint32_t>(e2.symbol) << 16) | (static_cast<uint32_t>(e3.symbol) << 24);
#if defined(__CUDA_ARCH__)
    *reinterpret_cast<uint32_t*>(dst + i) = word;
#else
    std::memcpy(dst + i, &word, 4);  // little-endian hosts only (x86-64, aarch64)
#endif
    br.skip(k);
  }
  for (; i < count; ++i) dst[i] = one();
  br.finish();
  // Reading past the first byte gives zeros (and symbols that fail here).
  return br.remaining_bits() == 0;
}

}  // namespace zarrgpu::zstd
