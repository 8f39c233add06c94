// Corrupt input: truncation, bit flips, lying headers, offsets before the
// start of the output, too-small output buffers, dictionaries, garbage. The
// decoder must return an error status (never crash, never hang) and never
// write outside [dst, dst + capacity): guard bytes after the capacity are checked.
#include <gtest/gtest.h>

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "codec/bytes_to_bytes/zstd/decoder/decode_frames.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/decode_frames_block_parallel.hpp"
#include "frame_corpus.hpp"

namespace zarrgpu::zstd::testing {
namespace {

constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xC3;

// Decodes with guard bytes after `capacity`; fails the test if one changed.
Status guarded_decode(const Bytes& src, size_t capacity, Bytes* out = nullptr, size_t* n_out = nullptr) {
  Bytes dst(capacity + kGuard, kGuardByte);
  size_t n = 0;
  const Status st = decode_frames(src.data(), src.size(), dst.data(), capacity, &n);
  for (size_t i = capacity; i < dst.size(); ++i) {
    if (dst[i] != kGuardByte) {
      ADD_FAILURE() << "write past capacity at +" << (i - capacity) << " status " << status_name(st);
      break;
    }
  }
  if (st == Status::ok) {
    EXPECT_LE(n, capacity);
  }
  // The block-parallel decoder (the walk to execution) must agree exactly: status, size, bytes, guard.
  Bytes bp(capacity + kGuard, kGuardByte);
  size_t bp_n = 0;
  const Status bp_st = decode_frames_block_parallel(src.data(), src.size(), bp.data(), capacity, &bp_n);
  for (size_t i = capacity; i < bp.size(); ++i) {
    if (bp[i] != kGuardByte) {
      ADD_FAILURE() << "block-parallel: write past capacity at +" << (i - capacity) << " status " << status_name(bp_st);
      break;
    }
  }
  if (bp_st != st) {
    ADD_FAILURE() << "block-parallel status " << status_name(bp_st) << ", serial " << status_name(st);
  } else if (st == Status::ok && (bp_n != n || !std::equal(dst.begin(), dst.begin() + n, bp.begin()))) {
    ADD_FAILURE() << "block-parallel decoded other bytes (" << bp_n << " vs " << n << ")";
  }
  if (out) {
    dst.resize(st == Status::ok ? n : 0);
    *out = std::move(dst);
  }
  if (n_out) *n_out = n;
  return st;
}

struct Sample {
  Bytes data;
  Bytes frame;
  std::string what;
};

std::vector<Sample> samples() {
  std::vector<Sample> s;
  const struct {
    DataKind kind;
    size_t size;
    int level;
    bool fcs, xxh;
    size_t flush;
  } cases[] = {
      {DataKind::text, 3000, 3, true, true, 0},       {DataKind::float_field, 9000, 1, false, false, 0},
      {DataKind::repetitive, 5000, 19, true, false, 0}, {DataKind::skewed, 20000, 3, true, true, 700},
      {DataKind::mixed, 60000, 7, false, false, 5000},  {DataKind::random, 2000, 3, true, false, 0},
      {DataKind::zeros, 300000, 3, true, true, 0},      {DataKind::text, 200000, -3, false, true, 9000},
  };
  int i = 0;
  for (const auto& c : cases) {
    FrameParams fp;
    fp.level = c.level;
    fp.content_size = c.fcs;
    fp.checksum = c.xxh;
    fp.flush_every = c.flush;
    Sample x;
    x.data = make_data(c.kind, c.size, 500 + i++);
    x.frame = compress(x.data, fp);
    x.what = std::string(data_kind_name(c.kind)) + " " + fp.describe();
    s.push_back(std::move(x));
  }
  return s;
}

TEST(ZstdCorruptInput, EveryTruncationIsAnError) {
  for (const Sample& s : samples()) {
    const size_t step = s.frame.size() < 4000 ? 1 : s.frame.size() / 1500 + 1;
    for (size_t len = 1; len < s.frame.size(); len += step) {
      const Bytes cut(s.frame.begin(), s.frame.begin() + len);
      const Status st = guarded_decode(cut, s.data.size() + 100);
      ASSERT_NE(st, Status::ok) << s.what << " prefix " << len << "/" << s.frame.size();
    }
  }
}

TEST(ZstdCorruptInput, TooSmallCapacityIsAnError) {
  for (const Sample& s : samples()) {
    const size_t step = s.data.size() < 3000 ? 1 : s.data.size() / 700 + 1;
    for (size_t cap = 0; cap < s.data.size(); cap += step) {
      const Status st = guarded_decode(s.frame, cap);
      ASSERT_NE(st, Status::ok) << s.what << " capacity " << cap;
    }
    EXPECT_EQ(guarded_decode(s.frame, s.data.size()), Status::ok) << s.what;
  }
}

TEST(ZstdCorruptInput, BitFlipsNeverEscapeTheOutputAndAgreeWithLibzstd) {
  Rng rng(8080);
  int both_ok = 0, both_err = 0, only_ref_ok = 0, only_ours_ok = 0;
  int rejected_by_status[16] = {};
  for (const Sample& s : samples()) {
    for (int t = 0; t < 1500; ++t) {
      Bytes f = s.frame;
      const int flips = 1 + static_cast<int>(rng.below(3));
      for (int k = 0; k < flips; ++k) f[rng.below(static_cast<uint32_t>(f.size()))] ^= uint8_t(1u << rng.below(8));
      const size_t cap = s.data.size() + rng.below(64);
      Bytes ours, ref;
      const Status st = guarded_decode(f, cap, &ours);
      if (HasFailure()) return;
      const bool ref_ok = reference_decode(f, &ref, cap);
      if (st == Status::ok && ref_ok) {
        ++both_ok;
        ASSERT_EQ(ours, ref) << "both decoded a flipped frame differently: " << s.what;
      } else if (st != Status::ok && !ref_ok) {
        ++both_err;
      } else if (ref_ok) {
        // Where libzstd 1.5.4 is more lenient than RFC 8878: its fast Huffman
        // and sequence loops do not check that a stream ends exactly at its
        // first bit (§4.2.2, §3.1.1.3.2.2), and it lets a compressed block
        // decode to more than Block_Maximum_Size (§3.1.1.2.4). We check both;
        // such frames are never written by an encoder.
        ++only_ref_ok;
        rejected_by_status[static_cast<int>(st)]++;
        if (const char* dir = std::getenv("ZSTD_TEST_DUMP_DIR")) {
          std::ofstream(std::string(dir) + "/reject_" + std::to_string(only_ref_ok) + "_cap" + std::to_string(cap) +
                            ".zst", std::ios::binary)
              .write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size()));
        }
        ASSERT_TRUE(st == Status::corrupt_literals || st == Status::corrupt_sequences || st == Status::corrupt_block)
            << "libzstd accepts a frame we reject (" << status_name(st) << "): " << s.what;
      } else {
        ++only_ours_ok;
      }
    }
  }
  std::printf("bit flips: both ok %d, both error %d, only libzstd ok %d (corrupt_literals %d, corrupt_sequences %d,"
              " corrupt_block %d), only zarrgpu ok %d\n", both_ok, both_err, only_ref_ok, rejected_by_status[7],
              rejected_by_status[10], rejected_by_status[6],
              only_ours_ok);
}

TEST(ZstdCorruptInput, RandomGarbage) {
  Rng rng(77);
  for (int t = 0; t < 3000; ++t) {
    Bytes f(rng.below(600));
    for (auto& b : f) b = static_cast<uint8_t>(rng.next());
    if (f.size() >= 4 && rng.below(2) == 0) {  // a real magic number and a plausible header
      const uint8_t magic[] = {0x28, 0xB5, 0x2F, 0xFD};
      std::copy(magic, magic + 4, f.begin());
      if (f.size() > 4) f[4] &= 0xF4;  // no dictionary, reserved bit clear
    }
    guarded_decode(f, rng.below(3) == 0 ? 0 : rng.below(5000));
    if (HasFailure()) return;
  }
}

TEST(ZstdCorruptInput, MutatedBlocksInsideValidFrames) {
  // Keep the frame header intact and overwrite runs of bytes in the blocks:
  // this reaches the literals and sequences decoders with bad tables and streams.
  Rng rng(4242);
  for (const Sample& s : samples()) {
    for (int t = 0; t < 800; ++t) {
      Bytes f = s.frame;
      const size_t start = 6 + rng.below(static_cast<uint32_t>(f.size() - 6));
      const size_t len = 1 + rng.below(8);
      for (size_t i = start; i < std::min(f.size(), start + len); ++i) f[i] = static_cast<uint8_t>(rng.next());
      guarded_decode(f, s.data.size() + rng.below(300));
      if (HasFailure()) return;
    }
  }
}

TEST(ZstdCorruptInput, LyingContentSize) {
  const Bytes data = make_data(DataKind::text, 5000, 1);
  FrameParams fp;
  Bytes frame = compress(data, fp);
  // 5000 needs the 2-byte Frame_Content_Size (value - 256).
  ASSERT_EQ(frame[4] >> 6, 1);
  const size_t fcs_at = frame[4] & 0x20 ? 5 : 6;
  for (int delta : {-1, 1, -4000, 50000}) {
    Bytes f = frame;
    const uint32_t v = static_cast<uint32_t>(static_cast<int>(data.size()) - 256 + delta);
    f[fcs_at] = v & 0xFF;
    f[fcs_at + 1] = (v >> 8) & 0xFF;
    const Status st = guarded_decode(f, data.size() + 100);
    // A single-segment frame's window is its content size, so a smaller lie may
    // also show as a block larger than the window allows.
    EXPECT_NE(st, Status::ok) << delta;
    if (delta > 0) {
      EXPECT_TRUE(st == Status::content_size_mismatch || st == Status::output_too_small) << status_name(st) << delta;
    }
  }
}

TEST(ZstdCorruptInput, OffsetBeforeTheOutputStart) {
  // libzstd's sequence API writes the sequences we give it, unchecked.
  Bytes data = make_data(DataKind::repetitive, 4000, 3);
  std::vector<ZSTD_Sequence> seqs;
  seqs.push_back(ZSTD_Sequence{64, 10, 200, 0});   // offset 64 at position 10: before the frame start
  for (uint32_t pos = 210; pos + 100 < data.size(); pos += 100) seqs.push_back(ZSTD_Sequence{50, 0, 100, 0});
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_blockDelimiters, ZSTD_sf_noBlockDelimiters);
  Bytes frame(ZSTD_compressBound(data.size()) + 100);
  const size_t n = ZSTD_compressSequences(cctx, frame.data(), frame.size(), seqs.data(), seqs.size(), data.data(),
                                          data.size());
  ZSTD_freeCCtx(cctx);
  ASSERT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  frame.resize(n);
  Bytes ref;
  ASSERT_FALSE(reference_decode(frame, &ref, data.size())) << "libzstd should reject it too";
  EXPECT_EQ(guarded_decode(frame, data.size()), Status::offset_out_of_range);
}

TEST(ZstdCorruptInput, DictionaryFramesGetTheirOwnStatus) {
  const Bytes dict = make_data(DataKind::text, 4096, 9);
  const Bytes data = make_data(DataKind::text, 3000, 10);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 1);
  // A raw-content dictionary has ID 0; give the frame an explicit ID via a ZDICT-format header.
  Bytes zdict(8 + dict.size());
  const uint32_t magic = 0xEC30A437u, id = 12345;
  std::memcpy(zdict.data(), &magic, 4);
  std::memcpy(zdict.data() + 4, &id, 4);
  std::copy(dict.begin(), dict.end(), zdict.begin() + 8);
  Bytes frame(ZSTD_compressBound(data.size()));
  size_t n = ZSTD_compress_usingDict(cctx, frame.data(), frame.size(), data.data(), data.size(), zdict.data(),
                                     zdict.size(), 3);
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) {
    // libzstd refuses an incomplete ZDICT header: write the Dictionary_ID into a plain frame instead.
    frame = compress(data, FrameParams{});
    frame.insert(frame.begin() + 5, {0x39, 0x30, 0x00, 0x00});
    frame[4] |= 3;
    n = frame.size();
  }
  frame.resize(n);
  EXPECT_EQ(guarded_decode(frame, data.size()), Status::dictionary_required);
}

TEST(ZstdCorruptInput, HeaderFields) {
  const Bytes data = make_data(DataKind::text, 1000, 2);
  FrameParams fp;
  fp.content_size = false;
  const Bytes frame = compress(data, fp);
  ASSERT_EQ(frame[4] & 0x20, 0) << "expected a window descriptor";
  {
    Bytes f = frame;
    f[5] = 0xF8;  // Window_Log 10 + 31
    EXPECT_EQ(guarded_decode(f, 2000), Status::window_too_large);
  }
  {
    Bytes f = frame;
    f[4] |= 0x08;
    EXPECT_EQ(guarded_decode(f, 2000), Status::reserved_bit_set);
  }
  {
    Bytes f = frame;
    f[0] ^= 1;
    EXPECT_EQ(guarded_decode(f, 2000), Status::unknown_frame);
  }
  {
    Bytes f = frame;
    f[6] |= 0x06;  // first block: Block_Type 3 (reserved)
    EXPECT_EQ(guarded_decode(f, 2000), Status::corrupt_block);
  }
  {
    Bytes f = skippable_frame(3, 10, 1);
    f[4] = 11;  // user data runs past the end
    EXPECT_EQ(guarded_decode(f, 2000), Status::truncated_input);
  }
  {
    Bytes f = frame;
    f.push_back(0x28);  // trailing bytes that cannot start a frame
    EXPECT_EQ(guarded_decode(f, 2000), Status::truncated_input);
  }
  {
    // Empty input decodes to nothing, as libzstd does.
    EXPECT_EQ(guarded_decode(Bytes{}, 10), Status::ok);
  }
  {
    size_t n = 0;
    EXPECT_EQ(decode_frames(nullptr, 10, nullptr, 0, &n), Status::invalid_argument);
    EXPECT_EQ(decode_frames_block_parallel(nullptr, 10, nullptr, 0, &n), Status::invalid_argument);
  }
}

TEST(ZstdCorruptInput, ChecksumMismatch) {
  const Bytes data = make_data(DataKind::float_field, 10000, 3);
  FrameParams fp;
  fp.checksum = true;
  Bytes f = compress(data, fp);
  f[f.size() - 2] ^= 0x40;
  EXPECT_EQ(guarded_decode(f, data.size()), Status::checksum_mismatch);
  size_t n = 0;
  Bytes out(data.size());
  DecodeOptions no_check;
  no_check.verify_checksum = false;
  EXPECT_EQ(decode_frames(f.data(), f.size(), out.data(), out.size(), &n, no_check), Status::ok);
  EXPECT_EQ(out, data);
}

TEST(ZstdCorruptInput, FuzzerRegressions) {
  // Every input the fuzzer ever crashed on: must now give a status, guard intact.
  const std::string dir = ZSTD_FUZZ_REGRESSIONS_DIR;
  DIR* d = opendir(dir.c_str());
  if (!d) GTEST_SKIP() << "no " << dir;
  int count = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(dir + "/" + e->d_name, std::ios::binary);
    const Bytes f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (size_t cap : {size_t{0}, size_t{100}, size_t{70000}}) guarded_decode(f, cap);
    ++count;
  }
  closedir(d);
  std::printf("replayed %d fuzzer regressions\n", count);
}

}  // namespace
}  // namespace zarrgpu::zstd::testing
