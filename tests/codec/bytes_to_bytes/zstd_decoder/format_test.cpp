// Unit tests of the format pieces: XXH64 against libxxhash, the bit readers,
// the predefined FSE distributions, frame header fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <type_traits>
#include <vector>

#if defined(ZARRGPU_HAVE_LIBXXHASH)
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif

#include "codec/bytes_to_bytes/zstd/decoder/bit_reader.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/block_execution.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/group.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/sequence_execution.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/sequences.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/fse.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/xxhash64.hpp"
#include "frame_corpus.hpp"
#include "lockstep_group.hpp"

namespace zarrgpu::zstd::testing {
namespace {

TEST(ZstdFormat, Xxh64MatchesLibxxhash) {
#if !defined(ZARRGPU_HAVE_LIBXXHASH)
  GTEST_SKIP() << "xxhash.h not found";
#else
  Rng rng(1);
  Bytes buf(5000);
  for (auto& b : buf) b = static_cast<uint8_t>(rng.next());
  for (size_t len = 0; len < 300; ++len) {
    for (size_t off : {size_t{0}, size_t{1}, size_t{7}}) {
      EXPECT_EQ(xxh64(buf.data() + off, len), XXH64(buf.data() + off, len, 0)) << len;
    }
  }
  EXPECT_EQ(xxh64(buf.data(), buf.size()), XXH64(buf.data(), buf.size(), 0));
  EXPECT_EQ(xxh64(buf.data(), 100, 12345), XXH64(buf.data(), 100, 12345));
  // The group form, with four accumulators, agrees with the serial one.
  EXPECT_EQ(xxh64_group(SerialGroup{}, buf.data(), 4321), XXH64(buf.data(), 4321, 0));
#endif
}

TEST(ZstdFormat, WindowBitReader) {
  // Stream 0b1_0110_101 in one byte: marker at bit 7, then 0110101 read from the top.
  const uint8_t one[] = {0xB5};
  WindowBitReader br;
  ASSERT_TRUE(br.init(one, 1));
  EXPECT_EQ(br.remaining_bits(), 7);
  EXPECT_EQ(br.read(3), 0b011u);
  EXPECT_EQ(br.read(4), 0b0101u);
  EXPECT_EQ(br.remaining_bits(), 0);
  EXPECT_EQ(br.read(5), 0u);  // past the start: zeros, and an overflow
  EXPECT_LT(br.remaining_bits(), 0);
  const uint8_t zero_end[] = {0x12, 0x00};
  EXPECT_FALSE(br.init(zero_end, 2));
  EXPECT_FALSE(br.init(zero_end, 0));
  // Long stream: read it back 13 bits at a time against a bit-by-bit model.
  Rng rng(3);
  Bytes s(1000);
  for (auto& b : s) b = static_cast<uint8_t>(rng.next());
  s.back() |= 0x80;
  ASSERT_TRUE(br.init(s.data(), s.size()));
  int64_t bit = static_cast<int64_t>(s.size()) * 8 - 1;  // the marker
  while (br.remaining_bits() >= 13) {
    uint64_t expect = 0;
    for (int k = 0; k < 13; ++k) {
      --bit;
      expect = (expect << 1) | ((s[bit >> 3] >> (bit & 7)) & 1u);
    }
    ASSERT_EQ(br.read(13), expect);
  }
}

// The ring readers (Huffman decoding's, and sequence decoding's LookaheadRingBitReader, on the GPU)
// give WindowBitReader's windows after any skips of up to kMaxSkip bits
// (WindowBitReader's in two where longer): streams of 1 to 80 bytes at
// every alignment, read past their start, so that every stage meets the
// edges. Sequence decoding's state-bits window (window_top_at) is the top of
// WindowBitReader's window that many bits on.
template <class Ring, uint32_t kMaxSkip>
void expect_ring_reads_as_window_reader(uint64_t seed) {
  Rng rng(seed);
  std::vector<uint8_t> buffer(96);
  for (int trial = 0; trial < 4000; ++trial) {
    const size_t size = 1 + rng.below(80), at = rng.below(8);
    for (auto& b : buffer) b = static_cast<uint8_t>(rng.next());
    uint8_t* s = buffer.data() + at;
    s[size - 1] |= static_cast<uint8_t>(1u << rng.below(8));  // an end marker somewhere in the last byte
    WindowBitReader a;
    Ring b{};
    uint64_t ring[kRingWords];
    b.ring = ring;
    ASSERT_TRUE(a.init(s, size));
    ASSERT_TRUE(b.init(s, size));
    while (a.remaining_bits() > -static_cast<int64_t>(3 * kMaxSkip)) {
      ASSERT_EQ(b.window(), a.window()) << trial;
      ASSERT_EQ(b.remaining_bits(), a.remaining_bits()) << trial;
      if constexpr (requires { b.window_top_at(0u); }) {
        const uint32_t e = rng.below(64);
        WindowBitReader past = a;
        past.skip(e);
        ASSERT_EQ(b.window_top_at(e), static_cast<uint32_t>(past.window() >> 32)) << trial << " e " << e;
      }
      // Over 64 bits (two words moved by one skip) a quarter of the time.
      const uint32_t n = kMaxSkip <= 64 ? rng.below(kMaxSkip + 1)
                         : rng.below(4) == 0 ? 64 + rng.below(kMaxSkip - 63)
                                             : rng.below(90);
      a.skip(n / 2);
      a.skip(n - n / 2);
      b.skip(n);
    }
    b.finish();
  }
}

TEST(ZstdFormat, RingBitReaderReadsAsWindowBitReader) { expect_ring_reads_as_window_reader<RingBitReader, 64>(9); }
TEST(ZstdFormat, LookaheadRingBitReaderReadsAsWindowBitReader) {
  expect_ring_reads_as_window_reader<LookaheadRingBitReader, 128>(10);
}

TEST(ZstdFormat, ForwardBitReader) {
  const uint8_t b[] = {0xA5, 0x0F};
  ForwardBitReader br(b, 2);
  EXPECT_EQ(br.read(4), 0x5u);
  EXPECT_EQ(br.read(8), 0xFAu);
  EXPECT_EQ(br.read(4), 0x0u);
  EXPECT_FALSE(br.overrun());
  EXPECT_EQ(br.read(1), 0u);
  EXPECT_TRUE(br.overrun());
}

TEST(ZstdFormat, PredefinedDistributionsFillTheirTables) {
  for (auto code : {SequenceCode::literals_length, SequenceCode::offset, SequenceCode::match_length}) {
    int total = 0;
    int16_t norm[64];
    for (uint32_t s = 0; s < predefined_symbols(code); ++s) {
      norm[s] = predefined_probability(code, s);
      total += norm[s] < 0 ? 1 : norm[s];
    }
    EXPECT_EQ(total, 1 << predefined_log(code));
    FseEntry table[64];
    EXPECT_TRUE(build_fse_table(norm, predefined_symbols(code), predefined_log(code), table));
  }
}

// Packed entries (2 bytes a state) give every state's fields back: the
// predefined tables, RLE tables, and random distributions of every
// accuracy log, with "less than 1" probabilities and the largest symbols.
TEST(ZstdFormat, PackedFseEntriesUnpackToTheirTables) {
  auto expect_packs = [](const FseEntry* table, uint32_t log, const std::string& what) {
    for (uint32_t u = 0; u < (1u << log); ++u) {
      const PackedFseEntry packed[1] = {pack_fse_entry(table[u], log)};
      const FseState a = fse_state(table, u, log), b = fse_state(packed, 0, log);
      ASSERT_EQ(b.symbol, a.symbol) << what << " state " << u;
      ASSERT_EQ(b.nb_bits, a.nb_bits) << what << " state " << u;
      ASSERT_EQ(b.base, a.base) << what << " state " << u;
    }
  };
  FseEntry table[1u << 9];
  int16_t norm[64];
  for (auto code : {SequenceCode::literals_length, SequenceCode::offset, SequenceCode::match_length}) {
    for (uint32_t s = 0; s < predefined_symbols(code); ++s) norm[s] = predefined_probability(code, s);
    ASSERT_TRUE(build_fse_table(norm, predefined_symbols(code), predefined_log(code), table));
    expect_packs(table, predefined_log(code), "predefined " + std::to_string(static_cast<int>(code)));
  }
  for (uint32_t symbol : {0u, 35u, 52u}) {
    build_fse_rle_table(static_cast<uint8_t>(symbol), table);
    expect_packs(table, 0, "rle " + std::to_string(symbol));
  }
  Rng rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    const uint32_t log = 5 + rng.below(5), symbols = 1 + rng.below(53);
    // Random counts that sum to 2^log: each symbol at least "less than 1".
    int32_t left = (1 << log) - static_cast<int32_t>(symbols);
    if (left < 0) continue;
    for (uint32_t s = 0; s < symbols; ++s) norm[s] = -1;
    while (left > 0) {
      const uint32_t s = rng.below(symbols);
      const int32_t add = 1 + static_cast<int32_t>(rng.below(static_cast<uint32_t>(left)));
      norm[s] = static_cast<int16_t>((norm[s] < 0 ? 1 : norm[s]) + add);  // a "less than 1" took one cell
      left -= add;
    }
    ASSERT_TRUE(build_fse_table(norm, symbols, log, table)) << trial;
    expect_packs(table, log, "random " + std::to_string(trial));
  }
}

// build_fse_table_group (table decoding's FSE tables, a warp at a time on the GPU) gives
// build_fse_table's table for every rank count: lanes in lockstep that meet at
// each sync stand in for the warp's lanes. Predefined distributions and
// random ones of every accuracy log, with zero and "less than 1"
// probabilities, and tables whose every symbol is "less than 1".
template <uint32_t N>
void expect_group_build_matches(const int16_t* norm, uint32_t symbols, uint32_t log, const std::string& what) {
  int16_t serial_norm[kFseBuildSymbols];
  std::copy(norm, norm + symbols, serial_norm);
  std::vector<FseEntry> serial(1u << log), group(1u << log, FseEntry{0xFFFF, 0xFF, 0xFF});
  ASSERT_TRUE(build_fse_table(serial_norm, symbols, log, serial.data())) << what;
  FseBuildScratch sc{};
  std::atomic<int> failed{0};
  run_group<N>([&](auto g) {
    if (!build_fse_table_group(g, norm, symbols, log, group.data(), sc)) failed = 1;
  });
  ASSERT_EQ(failed.load(), 0) << what;
  for (uint32_t u = 0; u < (1u << log); ++u) {
    ASSERT_EQ(group[u].symbol, serial[u].symbol) << what << " ranks " << N << " state " << u;
    ASSERT_EQ(group[u].nb_bits, serial[u].nb_bits) << what << " ranks " << N << " state " << u;
    ASSERT_EQ(group[u].base, serial[u].base) << what << " ranks " << N << " state " << u;
  }
}

TEST(ZstdFormat, GroupBuiltFseTablesMatchTheSerialBuild) {
  int16_t norm[kFseBuildSymbols];
  for (auto code : {SequenceCode::literals_length, SequenceCode::offset, SequenceCode::match_length}) {
    for (uint32_t s = 0; s < predefined_symbols(code); ++s) norm[s] = predefined_probability(code, s);
    const std::string what = "predefined " + std::to_string(static_cast<int>(code));
    expect_group_build_matches<32>(norm, predefined_symbols(code), predefined_log(code), what);
    expect_group_build_matches<5>(norm, predefined_symbols(code), predefined_log(code), what);
    expect_group_build_matches<1>(norm, predefined_symbols(code), predefined_log(code), what);
  }
  for (uint32_t s = 0; s < 32; ++s) norm[s] = -1;  // every symbol "less than 1": nothing to spread
  expect_group_build_matches<32>(norm, 32, 5, "all less than 1");
  Rng rng(17);
  for (int trial = 0; trial < 120; ++trial) {
    const uint32_t log = 5 + rng.below(5), symbols = 1 + rng.below(53);
    int32_t left = (1 << log);
    for (uint32_t s = 0; s < symbols; ++s) {
      norm[s] = rng.below(4) == 0 ? int16_t{0} : int16_t{-1};
      left -= norm[s] == -1 ? 1 : 0;
    }
    if (left < 0) continue;
    norm[rng.below(symbols)] = 0;  // at least one symbol takes the rest
    while (left > 0) {
      const uint32_t s = rng.below(symbols);
      const int32_t add = 1 + static_cast<int32_t>(rng.below(static_cast<uint32_t>(left)));
      norm[s] = static_cast<int16_t>((norm[s] < 0 ? 1 : norm[s]) + add);
      left -= add;
    }
    // "less than 1" symbols count one cell each; a symbol left at 0 has none.
    int32_t total = 0;
    for (uint32_t s = 0; s < symbols; ++s) total += norm[s] < 0 ? 1 : norm[s];
    if (total != (1 << log)) continue;
    const std::string what = "random " + std::to_string(trial);
    expect_group_build_matches<32>(norm, symbols, log, what);
    expect_group_build_matches<7>(norm, symbols, log, what);
  }
}

// The sequence decoder reads each sequence's fields (offset, match length,
// literals length extra bits, then the three state updates) in stream order
// whatever their widths (up to 63 bits of extra bits and 26 of states, more
// than one 64-bit window holds). Checked against a reader that takes the
// fields one at a time, on random tables (offset codes up to 31, states up
// to 9 bits) and random bitstreams, down to the bits left at the end.
TEST(ZstdFormat, SequenceDecoderReadsFieldsInStreamOrder) {
  struct Tables {
    uint32_t fse_log[3];  // indexed by SequenceCode
    FseEntry literals_length[1u << kLiteralsLengthLogMax];
    FseEntry match_length[1u << kMatchLengthLogMax];
    FseEntry offset[1u << kOffsetLogMax];
  };
  Rng rng(41);
  // Random counts over symbols [low, symbols) that fill 2^log cells (the
  // others absent): with a high `low`, wide fields in every sequence.
  auto random_table = [&rng](uint32_t log, uint32_t symbols, uint32_t low, FseEntry* table) {
    int16_t norm[64];
    int32_t left = (1 << log) - static_cast<int32_t>(symbols - low);
    for (uint32_t s = 0; s < symbols; ++s) norm[s] = s < low ? 0 : -1;
    while (left > 0) {
      const uint32_t s = low + rng.below(symbols - low);
      const int32_t add = 1 + static_cast<int32_t>(rng.below(static_cast<uint32_t>(left)));
      norm[s] = static_cast<int16_t>((norm[s] < 0 ? 1 : norm[s]) + add);
      left -= add;
    }
    return build_fse_table(norm, symbols, log, table);
  };
  uint64_t two_windows = 0, sequences = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Tables t{};
    t.fse_log[0] = 6 + rng.below(4);  // literals lengths: 36 codes
    t.fse_log[1] = 5 + rng.below(4);  // offsets: 32 codes
    t.fse_log[2] = 6 + rng.below(4);  // match lengths: 53 codes
    const bool wide = trial % 2 == 1;  // long offsets and lengths only
    ASSERT_TRUE(random_table(t.fse_log[0], kLiteralsLengthCodes, wide ? 28 : 0, t.literals_length));
    ASSERT_TRUE(random_table(t.fse_log[1], 32, wide ? 20 : 0, t.offset));
    ASSERT_TRUE(random_table(t.fse_log[2], kMatchLengthCodes, wide ? 44 : 0, t.match_length));
    Bytes stream(64 + rng.below(2048));
    for (auto& b : stream) b = static_cast<uint8_t>(rng.next());
    if (stream.back() == 0) stream.back() = 1;
    SequenceDecoder dec;
    WindowBitReader ref;
    ASSERT_TRUE(dec.init(t, stream.data(), stream.size()));
    ASSERT_TRUE(ref.init(stream.data(), stream.size()));
    uint32_t state[3];
    for (uint32_t c = 0; c < 3; ++c) state[c] = ref.read(t.fse_log[c]);
    const uint32_t count = 1 + rng.below(300);
    for (uint32_t i = 0; i < count; ++i) {
      const bool last = i + 1 == count;
      uint32_t offset_value, match_length, literals_length;
      dec.next(t, last, &offset_value, &match_length, &literals_length);
      const FseState ll = fse_state(t.literals_length, state[0], t.fse_log[0]);
      const FseState of = fse_state(t.offset, state[1], t.fse_log[1]);
      const FseState ml = fse_state(t.match_length, state[2], t.fse_log[2]);
      uint32_t ll_base, ll_bits, ml_base, ml_bits;
      literals_length_code(ll.symbol, &ll_base, &ll_bits);
      match_length_code(ml.symbol, &ml_base, &ml_bits);
      const uint32_t states = ll.nb_bits + ml.nb_bits + of.nb_bits;
      two_windows += !last && of.symbol + ml_bits + ll_bits + states > 63;
      ++sequences;
      const uint32_t want_offset = (1u << of.symbol) + ref.read(of.symbol);
      const uint32_t want_match = ml_base + ref.read(ml_bits);
      const uint32_t want_literals = ll_base + ref.read(ll_bits);
      ASSERT_EQ(offset_value, want_offset) << "trial " << trial << " sequence " << i;
      ASSERT_EQ(match_length, want_match) << "trial " << trial << " sequence " << i;
      ASSERT_EQ(literals_length, want_literals) << "trial " << trial << " sequence " << i;
      if (!last) {
        state[0] = ll.base + ref.read(ll.nb_bits);
        state[2] = ml.base + ref.read(ml.nb_bits);
        state[1] = of.base + ref.read(of.nb_bits);
        for (uint32_t c = 0; c < 3; ++c) ASSERT_EQ(dec.state[c], state[c]) << "trial " << trial << " sequence " << i;
      }
      ASSERT_EQ(dec.br.remaining_bits(), ref.remaining_bits()) << "trial " << trial << " sequence " << i;
    }
  }
  // Sequences wider than a window, and the others, many times.
  EXPECT_GT(two_windows, 1000u);
  EXPECT_GT(sequences - two_windows, 10000u);
}

TEST(ZstdFormat, SequenceCodeTables) {
  uint32_t base, bits;
  literals_length_code(35, &base, &bits);
  EXPECT_EQ(base, 65536u);
  EXPECT_EQ(bits, 16u);
  literals_length_code(24, &base, &bits);
  EXPECT_EQ(base, 48u);
  EXPECT_EQ(bits, 4u);
  match_length_code(52, &base, &bits);
  EXPECT_EQ(base, 65539u);
  EXPECT_EQ(bits, 16u);
  match_length_code(42, &base, &bits);
  EXPECT_EQ(base, 99u);
  EXPECT_EQ(bits, 5u);
  match_length_code(43, &base, &bits);
  EXPECT_EQ(base, 131u);
  EXPECT_EQ(bits, 7u);
}

TEST(ZstdFormat, FrameHeaderAgreesWithLibzstd) {
  Rng rng(11);
  for (int i = 0; i < 300; ++i) {
    FrameParams fp;
    fp.level = 1 + static_cast<int>(rng.below(9));
    fp.window_log = rng.below(2) ? 10 + static_cast<int>(rng.below(14)) : 0;
    fp.content_size = rng.below(2) == 0;
    fp.checksum = rng.below(2) == 0;
    const Bytes data = make_data(DataKind::text, rng.below(3) == 0 ? rng.below(300) : rng.below(300000), i);
    const Bytes frame = compress(data, fp);
    ZSTD_frameHeader ref;
    ASSERT_EQ(ZSTD_getFrameHeader(&ref, frame.data(), frame.size()), 0u);
    FrameHeader fh;
    ASSERT_EQ(parse_frame_header(frame.data(), frame.size(), &fh), Status::ok);
    EXPECT_EQ(fh.header_size, ref.headerSize);
    EXPECT_EQ(fh.window_size, ref.windowSize);
    EXPECT_EQ(fh.block_size_max, ref.blockSizeMax);
    EXPECT_EQ(fh.has_checksum, ref.checksumFlag != 0);
    EXPECT_EQ(fh.has_content_size, ref.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN);
    if (fh.has_content_size) {
      EXPECT_EQ(fh.content_size, ref.frameContentSize);
    }
  }
}

// Sequence i of a batch (Literals_Length ll, Match_Length ml, offset), after
// the batch's `literals` and `matches` so far, which it advances.
void append_to_batch(SequenceBatch& b, uint32_t i, uint32_t ll, uint32_t ml, uint32_t offset, uint32_t* literals,
                     uint32_t* matches) {
  b.offset[i] = offset;
  b.segment_start[2 * i] = *literals + *matches;
  *literals += ll;
  b.segment_start[2 * i + 1] = *literals + *matches;
  *matches += ml;
  b.literals_end[i] = *literals;
  b.matches_end[i] = *matches;
}

// Batch execution (all literals of a batch, then all match bytes, each
// followed back to a final byte) against executing the sequences one by one,
// byte by byte. Short offsets and long matches make chains of matches that
// read earlier matches of the same batch; literals sit in place at the tail
// of the output, as the block decoder leaves Huffman literals, or apart at
// any alignment, or are one repeated byte. One thread, and groups of 4 and
// 32 lanes in lockstep (a warp's ranks: each moves its own words of the
// literals, with the shuffles and barriers of the GPU).
TEST(ZstdFormat, BatchExecutionMatchesSerialExecution) {
  Rng rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const uint32_t history = 1 + rng.below(600);
    const uint32_t count = 1 + rng.below(kSequenceBatch);
    SequenceBatch b{};
    std::vector<uint32_t> ll(count), ml(count), off(count);
    uint32_t literals = 0, matches = 0;
    for (uint32_t i = 0; i < count; ++i) {
      ll[i] = rng.below(4) == 0 ? rng.below(100) : rng.below(6);
      ml[i] = 3 + (rng.below(5) == 0 ? rng.below(300) : rng.below(10));
      const uint32_t pos = history + literals + matches + ll[i];
      const uint32_t reach = rng.below(3) == 0 ? 8 : rng.below(2) == 0 ? 64 : pos;
      off[i] = 1 + rng.below(reach < pos ? reach : pos);
      append_to_batch(b, i, ll[i], ml[i], off[i], &literals, &matches);
    }
    const int kind = rng.below(4);  // 0, 1: literals in place; 2: apart; 3: RLE
    // The literals read position stays at least the batch's match bytes ahead of the writes.
    const uint32_t slack = rng.below(2) == 0 ? 0 : rng.below(50);
    const uint32_t lit_start = history + matches + slack;
    Bytes start(lit_start + literals + 1);
    for (auto& v : start) v = static_cast<uint8_t>(rng.next());
    const uint32_t apart_at = rng.below(8);  // literals apart start at any alignment
    Bytes apart(apart_at + literals);
    for (auto& v : apart) v = static_cast<uint8_t>(rng.next());
    const Bytes lit_copy = kind < 2 ? Bytes(start.begin() + lit_start, start.begin() + lit_start + literals)
                                    : Bytes(apart.begin() + apart_at, apart.end());
    Bytes ref(start.begin(), start.begin() + history);
    size_t lp = 0;
    for (uint32_t i = 0; i < count; ++i) {
      for (uint32_t k = 0; k < ll[i]; ++k) ref.push_back(kind == 3 ? 0x5A : lit_copy[lp++]);
      for (uint32_t k = 0; k < ml[i]; ++k) ref.push_back(ref[ref.size() - off[i]]);
    }
    auto check = [&](auto run, const char* group) {
      Bytes out = start;
      Literals lit{};
      lit.size = literals;
      lit.in_output = kind < 2;
      lit.rle = kind == 3;
      lit.rle_byte = 0x5A;
      lit.data = kind < 2 ? out.data() + lit_start : kind == 2 ? apart.data() + apart_at : nullptr;
      size_t op = history, lit_pos = 0;
      run(out, lit, &op, &lit_pos);
      ASSERT_EQ(op, ref.size()) << group;
      ASSERT_EQ(lit_pos, literals) << group;
      ASSERT_TRUE(std::equal(ref.begin(), ref.end(), out.begin())) << group << " trial " << trial << " kind " << kind;
    };
    check([&](Bytes& out, const Literals& lit, size_t* op, size_t* lit_pos) {
      execute_sequences(SerialGroup{}, b, count, out.data(), op, lit, lit_pos);
    }, "one thread");
    if (trial % 10 != 0) continue;  // a group of threads per trial takes longer
    auto grouped = [&](auto size) {
      constexpr uint32_t N = decltype(size)::value;
      return [&](Bytes& out, const Literals& lit, size_t* op, size_t* lit_pos) {
        std::vector<size_t> ops(N, *op), lit_poss(N, 0);
        run_group<N>([&](LockstepGroup<N> g) {
          execute_sequences(g, b, count, out.data(), &ops[g.rank()], lit, &lit_poss[g.rank()]);
        });
        for (uint32_t r = 1; r < N; ++r) ASSERT_TRUE(ops[r] == ops[0] && lit_poss[r] == lit_poss[0]);
        *op = ops[0];
        *lit_pos = lit_poss[0];
      };
    };
    check(grouped(std::integral_constant<uint32_t, 4>{}), "4 threads");
    check(grouped(std::integral_constant<uint32_t, 32>{}), "32 threads");
  }
}

// Pass 1 of a batch whose literal runs are short, each rank copying its own
// sequences' runs (the block-parallel literal copy's path for them), writes exactly
// what the shared-words pass writes: every literal in its place, and not one
// byte where the matches go or around the batch. Literals apart at any
// alignment, from any position of the block's literals, or one repeated
// byte; runs of 0 to kShortLiteralRun; groups of 1, 4 and 32 ranks.
TEST(ZstdFormat, ShortLiteralRunsByTheirRankPlaceAsSharedWords) {
  Rng rng(13);
  for (int trial = 0; trial < 600; ++trial) {
    const uint32_t count = 1 + rng.below(kSequenceBatch);
    SequenceBatch b{};
    uint32_t literals = 0, matches = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t ll = rng.below(3) == 0 ? 0 : rng.below(kShortLiteralRun + 1);
      append_to_batch(b, i, ll, 3 + rng.below(12), 1, &literals, &matches);
    }
    const bool rle = rng.below(5) == 0;
    const uint32_t lit_at = rng.below(8), lit_pos = rng.below(40);
    Bytes apart(lit_at + lit_pos + literals + rng.below(3));
    for (auto& v : apart) v = static_cast<uint8_t>(rng.next());
    const uint32_t base_at = rng.below(16);
    Bytes start(base_at + literals + matches + 16);
    for (auto& v : start) v = static_cast<uint8_t>(rng.next());
    Literals lit{};
    lit.data = rle ? nullptr : apart.data() + lit_at;
    lit.size = static_cast<uint32_t>(apart.size() - lit_at);
    lit.rle = rle;
    lit.rle_byte = 0xC3;
    lit.in_output = false;
    Bytes expect = start;
    place_batch_literals(SerialGroup{}, b, count, expect.data() + base_at, lit, lit_pos);
    auto run = [&](auto size) {
      constexpr uint32_t N = decltype(size)::value;
      Bytes out = start;
      if constexpr (N == 1) {
        place_batch_literals_by_sequence(SerialGroup{}, b, count, out.data() + base_at, lit, lit_pos);
      } else {
        run_group<N>([&](LockstepGroup<N> g) {
          place_batch_literals_by_sequence(g, b, count, out.data() + base_at, lit, lit_pos);
        });
      }
      ASSERT_TRUE(out == expect) << N << " ranks, trial " << trial;
    };
    run(std::integral_constant<uint32_t, 1>{});
    if (trial % 4 != 0) continue;
    run(std::integral_constant<uint32_t, 4>{});
    run(std::integral_constant<uint32_t, 32>{});
  }
}

// A block's last literals (and raw blocks) as copy_literals() moves them,
// in place (the destination before the source, possibly overlapping it)
// and apart, at every alignment of source and destination, by groups of 1,
// 4 and 32 ranks.
TEST(ZstdFormat, LiteralRunsMoveAtEveryAlignment) {
  Rng rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const uint32_t n = rng.below(4) == 0 ? rng.below(20) : rng.below(3000);
    const uint32_t from = rng.below(40);
    const bool in_place = rng.below(2) == 0;
    const uint32_t dst_at = rng.below(16);
    const uint32_t src_at = in_place ? dst_at + rng.below(40) : rng.below(16);  // literal `from` at src_at
    Bytes start(dst_at + src_at + from + n + 16), apart(src_at + from + n + 3);
    for (auto& v : start) v = static_cast<uint8_t>(rng.next());
    for (auto& v : apart) v = static_cast<uint8_t>(rng.next());
    auto run = [&](auto size) {
      constexpr uint32_t N = decltype(size)::value;
      Bytes out = start;
      Literals lit{};
      lit.in_output = in_place;
      lit.data = (in_place ? out.data() : apart.data()) + src_at;
      lit.size = from + n + 2;  // literals after the run too: they must stay as they are
      const Bytes expect = Bytes(lit.data + from, lit.data + from + n);
      if constexpr (N == 1) {
        copy_literals(SerialGroup{}, out.data() + dst_at, lit, from, n);
      } else {
        run_group<N>([&](LockstepGroup<N> g) { copy_literals(g, out.data() + dst_at, lit, from, n); });
      }
      ASSERT_TRUE(std::equal(expect.begin(), expect.end(), out.begin() + dst_at)) << N << " ranks, trial " << trial;
      // Nothing else was written: before the run and after it (the source's tail when apart).
      ASSERT_TRUE(std::equal(start.begin(), start.begin() + dst_at, out.begin())) << N << " ranks, trial " << trial;
      if (!in_place) {
        ASSERT_TRUE(std::equal(start.begin() + dst_at + n, start.end(), out.begin() + dst_at + n))
            << N << " ranks, trial " << trial;
      }
    };
    run(std::integral_constant<uint32_t, 1>{});
    run(std::integral_constant<uint32_t, 4>{});
    run(std::integral_constant<uint32_t, 32>{});
  }
}

}  // namespace
}  // namespace zarrgpu::zstd::testing
