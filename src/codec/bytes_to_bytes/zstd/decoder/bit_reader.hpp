// Bit readers of RFC 8878 §4.1 (forward, for FSE table descriptions) and
// §4.1.2 / §4.2.2 (backward, for FSE and Huffman bitstreams).
#pragma once

#include <cstring>

#include "config.hpp"

namespace zarrgpu::zstd {

// Bytes [pos, pos + 8) of the buffer [base, base + size) as a little-endian
// word; bytes outside the buffer read as zero and are never touched, so the
// reader never leaves the chunk's input even at the edge of an allocation.
ZARRGPU_HD_INLINE uint64_t load_le64_zero_filled(const uint8_t* base, int64_t pos, size_t size) {
  if (pos >= 0 && static_cast<uint64_t>(pos) + 8 <= size) {
    const uint8_t* p = base + pos;
#if defined(__CUDA_ARCH__)
    // Two aligned 8-byte loads when both words lie inside the buffer,
    // otherwise byte loads: unaligned wide loads fault on the GPU.
    const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
    const uint32_t misalign = static_cast<uint32_t>(addr & 7u);
    if (misalign == 0) return *reinterpret_cast<const uint64_t*>(p);
    const uint8_t* lo = p - misalign;
    if (lo >= base && lo + 16 <= base + size) {
      const uint64_t w0 = reinterpret_cast<const uint64_t*>(lo)[0];
      const uint64_t w1 = reinterpret_cast<const uint64_t*>(lo)[1];
      return (w0 >> (8 * misalign)) | (w1 << (64 - 8 * misalign));
    }
    return load_le64_bytes(p);
#else
    uint64_t v;
    std::memcpy(&v, p, 8);  // little-endian hosts only (x86-64, aarch64)
    return v;
#endif
  }
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    const int64_t q = pos + i;
    if (q >= 0 && static_cast<uint64_t>(q) < size) v |= static_cast<uint64_t>(base[q]) << (8 * i);
  }
  return v;
}

// Little-endian, least-significant-bit-first reader (RFC 8878 §4.1.1).
// Reading past the end yields zeros; overrun() tells whether that happened.
struct ForwardBitReader {
  const uint8_t* base;
  size_t size;
  uint64_t bit_pos;

  ZARRGPU_HD_INLINE ForwardBitReader(const uint8_t* b, size_t s) : base(b), size(s), bit_pos(0) {}

  // Up to 32 bits without consuming them.
  ZARRGPU_HD_INLINE uint32_t peek(uint32_t n) const {
    const uint64_t byte = bit_pos >> 3;
    const uint64_t word = load_le64_zero_filled(base, static_cast<int64_t>(byte), size);
    const uint64_t v = word >> (bit_pos & 7);
    return n == 0 ? 0u : static_cast<uint32_t>(v & ((uint64_t{1} << n) - 1));
  }
  ZARRGPU_HD_INLINE void skip(uint32_t n) { bit_pos += n; }
  ZARRGPU_HD_INLINE uint32_t read(uint32_t n) {
    const uint32_t v = peek(n);
    bit_pos += n;
    return v;
  }
  ZARRGPU_HD_INLINE size_t bytes_consumed() const { return static_cast<size_t>((bit_pos + 7) >> 3); }
  ZARRGPU_HD_INLINE bool overrun() const { return bit_pos > static_cast<uint64_t>(size) * 8; }
};

// The bytes [base, base + size) as aligned little-endian 64-bit words: word
// j covers bytes [8j - off, 8j - off + 8) of the stream, off = base's
// distance above the 8-byte boundary below it. Bytes outside the stream
// read as zero and are never touched.
struct AlignedWords {
  const uint8_t* base;
  int64_t size;
  int64_t off;

  ZARRGPU_HD_INLINE uint64_t word(int64_t j) const {
    const int64_t rel = 8 * j - off;  // offset of the word's first byte from base
    if (rel >= 0 && rel + 8 <= size) {
#if defined(__CUDA_ARCH__)
      return *reinterpret_cast<const uint64_t*>(base + rel);  // aligned by construction
#else
      uint64_t v;
      std::memcpy(&v, base + rel, 8);  // little-endian hosts only (x86-64, aarch64)
      return v;
#endif
    }
    return load_le64_zero_filled(base, rel, static_cast<size_t>(size));  // at the stream's edges
  }
};

// Reader of a bitstream written forward and read backward (RFC 8878 §4.1.2):
// the last byte holds a 1-bit end marker above the final bits; reading goes
// from that marker towards the first byte. Bits before the first byte read as
// zero; remaining_bits() turns negative once they are used (an "overflow").
// Read through a 128-bit window of two aligned words (hi, lo): this is where
// a reader stands; the readers below add how the words after the window
// arrive.
struct BackwardWindow {
  AlignedWords words;
  int32_t j;          // word holding the next bit (a block's stream: 32 bits, fewer instructions on a GPU)
  uint32_t c;         // window bits above the next bit (0..63)
  int64_t first_bit;  // bit 0 of the stream's first byte
  uint64_t hi, lo;

  // False when the stream is empty or its last byte has no end marker.
  ZARRGPU_HD_INLINE bool start(const uint8_t* src, size_t size) {
    if (size == 0 || src[size - 1] == 0) return false;
    words = AlignedWords{src, static_cast<int64_t>(size), static_cast<int64_t>(reinterpret_cast<uintptr_t>(src) & 7u)};
    first_bit = 8 * words.off;
    // The first bit read is the one below the last byte's end marker (p0 >= -1).
    const int64_t p0 = 8 * (words.off + static_cast<int64_t>(size) - 1) + highbit32(src[size - 1]) - 1;
    j = static_cast<int32_t>(p0 >> 6);
    c = static_cast<uint32_t>(64 * int64_t{j} + 63 - p0);
    hi = words.word(j);
    lo = words.word(j - 1);
    return true;
  }
  // The next 64 bits, first bit on top.
  ZARRGPU_HD_INLINE uint64_t window() const { return (hi << c) | ((lo >> 1) >> (63 - c)); }
  // The same; on the GPU as two funnel shifts of the 32-bit halves that
  // hold them (each shifts by c mod 32), 6 instructions, not 9: for sequence decoding's
  // chain (sequences.hpp). Huffman decoding's loops keep window(): with this one
  // level 1 at 256 KiB was 1.4-6% slower (ab_many.sh).
  ZARRGPU_HD_INLINE uint64_t window_by_halves() const {
#if defined(__CUDA_ARCH__)
    const bool upper = c < 32;
    const auto a = static_cast<uint32_t>(upper ? hi >> 32 : hi);
    const auto b = static_cast<uint32_t>(upper ? hi : lo >> 32);
    const auto d = static_cast<uint32_t>(upper ? lo >> 32 : lo);
    return (uint64_t{__funnelshift_l(b, a, c)} << 32) | __funnelshift_l(d, b, c);
#else
    return window();
#endif
  }
  // The next 32 bits, first bit on top: on the GPU one funnel shift (the
  // lower half's falls away).
  ZARRGPU_HD_INLINE uint32_t window_top() const { return static_cast<uint32_t>(window_by_halves() >> 32); }
  ZARRGPU_HD_INLINE int64_t remaining_bits() const {
    return 64 * int64_t{j} + 64 - static_cast<int64_t>(c) - first_bit;
  }
  // Consumes n <= 64 bits; true when the window moved down a word (hi is
  // the old lo): the reader then brings the new lo.
  ZARRGPU_HD_INLINE bool advance(uint32_t n) {
    c += n;
    if (c < 64) return false;
    c -= 64;
    hi = lo;
    --j;
    return true;
  }
};

// The next two words already requested into registers: on the GPU a lane
// decoding one stream among many would otherwise stall on each reload for a
// cache miss.
struct WindowBitReader : BackwardWindow {
  uint64_t pre1, pre2;

  ZARRGPU_HD_INLINE bool init(const uint8_t* src, size_t size) {
    if (!start(src, size)) return false;
    pre1 = words.word(j - 2);
    pre2 = words.word(j - 3);
    return true;
  }
  // Consumes n <= 64 bits.
  ZARRGPU_HD_INLINE void skip(uint32_t n) {
    if (advance(n)) {
      lo = pre1;
      pre1 = pre2;
      pre2 = words.word(j - 3);
    }
  }
  // Consumes and returns the next n <= 32 bits (0 when n is 0).
  ZARRGPU_HD_INLINE uint32_t read(uint32_t n);
  ZARRGPU_HD_INLINE void finish() const {}
};

// The same reader with the words after its window staged in a ring of
// kRingWords words per thread (shared memory on the GPU), kRingAhead words
// ahead, by asynchronous copies (cp.async) that no register waits on: a
// refill reads the next word from the ring. WindowBitReader's prefetched
// words pass through registers, and the compiler moves a freshly loaded one
// at the refill's merge point, which waits for the load: in sequence decoding that move
// was 30% of the stall samples (ncu). On the host the copies are
// plain stores.
inline constexpr uint32_t kRingWords = 8;
inline constexpr uint32_t kRingAhead = 6;
static_assert(kRingAhead < kRingWords, "a word is read from the ring before its slot is staged again");

// Copies of 8 aligned bytes into a thread's ring, and waiting for them: on
// the GPU each stage is one cp.async group. The addresses are the state
// spaces' own (RingAddresses): converted once per stream, not per copy.
struct RingAddresses {
  uint64_t ring;   // the ring's first word: on the GPU a shared-space address
  uint64_t words;  // aligned word 0 of the stream (AlignedWords): on the GPU a global-space address
  ZARRGPU_HD_INLINE void set(const uint64_t* r, const AlignedWords& w) {
#if defined(__CUDA_ARCH__)
    asm("cvta.to.shared.u64 %0, %1;" : "=l"(ring) : "l"(r));
    asm("cvta.to.global.u64 %0, %1;" : "=l"(words) : "l"(w.base));
#else
    ring = reinterpret_cast<uintptr_t>(r);
    words = reinterpret_cast<uintptr_t>(w.base);
#endif
    words -= static_cast<uint64_t>(w.off);
  }
  // Slot s of the ring (on the GPU, the 32-bit shared-space address), and
  // aligned word w of the stream.
  ZARRGPU_HD_INLINE uint64_t slot(uint32_t s) const { return ring + 8 * s; }
  ZARRGPU_HD_INLINE uint64_t word(int32_t w) const { return words + 8 * static_cast<int64_t>(w); }
};
// Word w of the stream into ring slot `slot` as one stage (a cp.async
// group on the GPU): copied asynchronously when `whole` (it lies whole in
// the stream), else `value` stored here. Predicated, not branched: a
// refill is then straight-line code.
ZARRGPU_HD_INLINE void ring_stage(const RingAddresses& a, uint32_t slot, int32_t w, bool whole, uint64_t value) {
#if defined(__CUDA_ARCH__)
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %2, 0;\n\t"
      "@p cp.async.ca.shared.global [%0], [%1], 8;\n\t"
      "@!p st.shared.u64 [%0], %3;\n\t"
      "cp.async.commit_group;\n\t}" ::"r"(static_cast<uint32_t>(a.slot(slot))),
      "l"(a.word(w)), "r"(static_cast<uint32_t>(whole)), "l"(value)
      : "memory");
#else
  auto* to = reinterpret_cast<uint64_t*>(a.slot(slot));
  if (whole) std::memcpy(to, reinterpret_cast<const uint8_t*>(a.word(w)), 8);
  else *to = value;
#endif
}
// Ring slot `slot`'s word (its stage landed: ring_wait_at_most()).
ZARRGPU_HD_INLINE uint64_t ring_load(const RingAddresses& a, uint32_t slot) {
#if defined(__CUDA_ARCH__)
  uint64_t v;
  asm volatile("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(static_cast<uint32_t>(a.slot(slot))) : "memory");
  return v;
#else
  return *reinterpret_cast<const uint64_t*>(a.slot(slot));
#endif
}
// Until at most n of this thread's stages are in flight: kRingAhead - 1
// for the oldest stage (RingBitReader's refill), kRingAhead - 2 for the
// second oldest (LookaheadRingBitReader: after a refill staged word j - 1 -
// kRingAhead, word j - 2 has landed).
template <uint32_t n>
ZARRGPU_HD_INLINE void ring_wait_at_most() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_group %0;" ::"n"(n) : "memory");
#endif
}
// Until none is: before the ring's memory goes to other use (or away).
ZARRGPU_HD_INLINE void ring_drain() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

struct RingBitReader : BackwardWindow {
  uint64_t* ring;  // kRingWords words of the caller's, set before init()
  RingAddresses at;
  int32_t whole_from;  // the words from here up lie whole in the stream
                       // (those above the window's always do)
  uint64_t edge;       // word whole_from - 1, the stream's first bytes
                       // (or none: zero); the words below it are zero

  // Word w (below the window) into its slot as one stage. Once a branch
  // (a copy, or the stream's first bytes worked out here), which made a
  // refill a nest of branches that the warp's other lanes waited at; as
  // one predicated copy or store, a refill is ~25 instructions in a row,
  // and sequence decoding's loop with its refills is a third of its size (with one window
  // for the lengths, sequences.hpp, against both as branches: level 1
  // +4.0 / +6.7 / +1.4%, level 9 +3.0 / +1.2 / +0.2%, level 19 +0.8 / +2.1
  // / +1.5% at 64 / 256 / 1024 KiB; ab_many.sh).
  ZARRGPU_HD_INLINE void stage(int32_t w) {
    const auto slot = static_cast<uint32_t>(w) & (kRingWords - 1);
    ring_stage(at, slot, w, w >= whole_from, w == whole_from - 1 ? edge : 0);
  }
  ZARRGPU_HD_INLINE bool init(const uint8_t* src, size_t size) {
    if (!start(src, size)) return false;
    at.set(ring, words);
    whole_from = static_cast<int32_t>((words.off + 7) / 8);  // 8w - off >= 0; and 8w - off + 8 <= size below the window
    edge = words.word(whole_from - 1);
    for (int32_t k = 1; k <= static_cast<int32_t>(kRingAhead); ++k) stage(j - 1 - k);
    return true;
  }
  ZARRGPU_HD_INLINE void skip(uint32_t n) {
    if (advance(n)) {
      ring_wait_at_most<kRingAhead - 1>();  // word j - 1, staged kRingAhead stages ago, has landed
      lo = ring_load(at, static_cast<uint32_t>(j - 1) & (kRingWords - 1));
      stage(j - 1 - static_cast<int32_t>(kRingAhead));
    }
  }
  // After the last read, on every path out: no copy is left to land in the
  // ring once its memory has another use.
  ZARRGPU_HD_INLINE void finish() const { ring_drain(); }
};

// The ring reader with a third word in registers: `ahead`, the word below
// lo, read from the ring after every skip (outside any branch: nothing
// waits on it until the next sequence). A sequence then reads its state
// bits past its extra bits from the three words (window_top_at), and skips
// once, not twice: sequence decoding's loop had a refill check after each skip, the
// second with its shared-memory load on the chain (the branch's end moved
// the loaded word into place, and in-order issue held the next sequence's
// lookups behind it), and in most of a warp's sequences some lane took one
// of them. Skips of up to 128 bits; the stages stay kRingAhead words ahead
// of lo.
struct LookaheadRingBitReader : RingBitReader {
  uint64_t ahead;  // word j - 2

  ZARRGPU_HD_INLINE bool init(const uint8_t* src, size_t size) {
    if (!RingBitReader::init(src, size)) return false;
    ahead = words.word(j - 2);  // as the ring stages it: zero below the stream
    return true;
  }
  // The 32 bits from e bits past the next one (e < 64), first bit on top.
  ZARRGPU_HD_INLINE uint32_t window_top_at(uint32_t e) const {
    const uint32_t k = c + e;  // < 127: bits [k, k + 32) lie in hi, lo, ahead
    const bool low_pair = k >= 64;
    const uint64_t first = low_pair ? lo : hi;
    const uint64_t second = low_pair ? ahead : lo;
#if defined(__CUDA_ARCH__)
    const bool upper = (k & 32u) == 0;
    const auto a = static_cast<uint32_t>(upper ? first >> 32 : first);
    const auto b = static_cast<uint32_t>(upper ? first : second >> 32);
    return __funnelshift_l(b, a, k);  // shifts by k mod 32
#else
    const uint32_t s = k & 63u;
    return static_cast<uint32_t>((s == 0 ? first : (first << s) | (second >> (64 - s))) >> 32);
#endif
  }
  // Consumes n <= 128 bits.
  ZARRGPU_HD_INLINE void skip(uint32_t n) {
    c += n;
    if (c >= 64) {
      c -= 64;
      hi = lo;
      lo = ahead;
      --j;
      stage(j - 1 - static_cast<int32_t>(kRingAhead));
      if (c >= 64) {  // a second word (long extra bits and states): rare
        c -= 64;
        hi = lo;
        --j;
        ring_wait_at_most<kRingAhead - 2>();
        lo = ring_load(at, static_cast<uint32_t>(j - 1) & (kRingWords - 1));
        stage(j - 1 - static_cast<int32_t>(kRingAhead));
      }
    }
    ring_wait_at_most<kRingAhead - 2>();  // word j - 2 has landed
    ahead = ring_load(at, static_cast<uint32_t>(j - 2) & (kRingWords - 1));
  }
};

// Bit extraction from a window (first bit on top) in 32-bit steps: on the
// GPU a 64-bit shift by a variable amount is two to three instructions, a
// funnel shift of two 32-bit halves one, and the decoders' serial chains
// (sequence states, Huffman streams) are made of these.
//
// The 32 bits of w from bit k down, k < 32.
ZARRGPU_HD_INLINE uint32_t window_word_low(uint64_t w, uint32_t k) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_l(static_cast<uint32_t>(w), static_cast<uint32_t>(w >> 32), k);
#else
  return static_cast<uint32_t>((w << k) >> 32);
#endif
}
// The 32 bits of w from bit k down, k < 64 (zeros below bit 0).
ZARRGPU_HD_INLINE uint32_t window_word(uint64_t w, uint32_t k) {
#if defined(__CUDA_ARCH__)
  return k < 32 ? window_word_low(w, k) : static_cast<uint32_t>(w) << (k - 32);
#else
  return static_cast<uint32_t>((w << k) >> 32);
#endif
}
// The top n <= 32 bits of x; 0 when n is 0.
ZARRGPU_HD_INLINE uint32_t top_bits(uint32_t x, uint32_t n) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_lc(x, 0u, n);  // upper half of (0:x) << min(n, 32)
#else
  return n == 0 ? 0u : x >> (32 - n);
#endif
}

// (1 << n) + top_bits(x, n) for n < 32: the bits below a leading 1, as an
// Offset_Value is read (§3.1.1.3.2.1.1); on the GPU one funnel shift.
ZARRGPU_HD_INLINE uint32_t one_then_top_bits(uint32_t x, uint32_t n) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_lc(x, 1u, n);  // upper half of (1:x) << n
#else
  return (1u << n) + top_bits(x, n);
#endif
}

// n <= 32 bits of w from bit k down (k < 64, k + n <= 64); 0 when n is 0.
ZARRGPU_HD_INLINE uint32_t window_bits(uint64_t w, uint32_t k, uint32_t n) { return top_bits(window_word(w, k), n); }

ZARRGPU_HD_INLINE uint32_t WindowBitReader::read(uint32_t n) {
  const uint32_t v = window_bits(window(), 0, n);
  skip(n);
  return v;
}

}  // namespace zarrgpu::zstd
