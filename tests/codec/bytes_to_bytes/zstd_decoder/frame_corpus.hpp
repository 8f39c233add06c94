// Test inputs for the Zstandard decoder: data generators with distinct
// statistics, and frames written by libzstd with chosen parameters, so that
// every block type and entropy mode of RFC 8878 shows up.
#pragma once

#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace zarrgpu::zstd::testing {

using Bytes = std::vector<uint8_t>;

// Small deterministic generator (SplitMix64), so failures reproduce.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
};

enum class DataKind { random, zeros, text, float_field, repetitive, skewed, mixed, count };

inline const char* data_kind_name(DataKind k) {
  switch (k) {
    case DataKind::random: return "random";
    case DataKind::zeros: return "zeros";
    case DataKind::text: return "text";
    case DataKind::float_field: return "float_field";
    case DataKind::repetitive: return "repetitive";
    case DataKind::skewed: return "skewed";
    case DataKind::mixed: return "mixed";
    default: return "?";
  }
}

inline void append_kind(Bytes& out, DataKind kind, size_t n, Rng& rng) {
  const size_t start = out.size();
  out.resize(start + n);
  uint8_t* p = out.data() + start;
  switch (kind) {
    case DataKind::random:
      for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(rng.next());
      break;
    case DataKind::zeros:
      std::memset(p, 0, n);
      break;
    case DataKind::text: {
      static const char* words[] = {"the ", "zarr ", "chunk ", "of ", "an ", "array ", "decodes ", "on ", "a ",
                                    "gpu ", "frame ", "block ", "literal ", "sequence ", "offset ", "\n"};
      size_t i = 0;
      while (i < n) {
        const char* w = words[rng.below(16)];
        for (size_t k = 0; w[k] && i < n; ++k) p[i++] = static_cast<uint8_t>(w[k]);
      }
      break;
    }
    case DataKind::float_field: {
      // A smooth field plus noise, like a reanalysis variable.
      const double phase = rng.uniform() * 6.28;
      size_t count = n / 4;
      for (size_t i = 0; i < count; ++i) {
        const double x = static_cast<double>(i) * 0.001;
        const float v = static_cast<float>(280.0 + 15.0 * std::sin(x + phase) + 3.0 * std::sin(7.3 * x) +
                                           0.05 * (rng.uniform() - 0.5));
        std::memcpy(p + 4 * i, &v, 4);
      }
      for (size_t i = count * 4; i < n; ++i) p[i] = 0;
      break;
    }
    case DataKind::repetitive: {
      const size_t period = 1 + rng.below(48);
      Bytes pattern(period);
      for (auto& b : pattern) b = static_cast<uint8_t>(rng.next());
      for (size_t i = 0; i < n; ++i) {
        p[i] = pattern[i % period];
        if (rng.below(997) == 0) p[i] ^= static_cast<uint8_t>(rng.next());
      }
      break;
    }
    case DataKind::skewed:
      for (size_t i = 0; i < n; ++i) {
        const uint32_t r = rng.below(1000);
        p[i] = static_cast<uint8_t>(r < 600 ? 'a' : r < 850 ? 'b' : r < 950 ? 'c' : r < 990 ? rng.below(16) : rng.next());
      }
      break;
    default: {
      // Segments of the other kinds: block types and table modes change inside one frame.
      out.resize(start);
      while (out.size() < start + n) {
        const size_t seg = std::min<size_t>(start + n - out.size(), 256 + rng.below(40000));
        append_kind(out, static_cast<DataKind>(rng.below(6)), seg, rng);
      }
      break;
    }
  }
}

inline Bytes make_data(DataKind kind, size_t n, uint64_t seed) {
  Rng rng(seed);
  Bytes out;
  out.reserve(n);
  append_kind(out, kind, n, rng);
  return out;
}

// Compression parameters of one generated frame.
struct FrameParams {
  int level = 3;
  int window_log = 0;          // 0: libzstd's choice
  bool content_size = true;
  bool checksum = false;
  bool long_distance = false;
  int literal_mode = 0;        // ZSTD_ps_auto / enable / disable
  size_t target_block = 0;     // ZSTD_c_targetCBlockSize (0: off)
  size_t flush_every = 0;      // ZSTD_e_flush after this many input bytes: many blocks
  bool streamed = false;       // ZSTD_compressStream2 without a pledged size
  std::string describe() const {
    return "level=" + std::to_string(level) + " wlog=" + std::to_string(window_log) +
           " fcs=" + std::to_string(content_size) + " xxh=" + std::to_string(checksum) +
           " ldm=" + std::to_string(long_distance) + " lit=" + std::to_string(literal_mode) +
           " tcb=" + std::to_string(target_block) + " flush=" + std::to_string(flush_every) +
           " streamed=" + std::to_string(streamed);
  }
};

inline void check_zstd(size_t r, const char* what) {
  if (ZSTD_isError(r)) throw std::runtime_error(std::string(what) + ": " + ZSTD_getErrorName(r));
}

inline Bytes compress(const Bytes& data, const FrameParams& fp) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  check_zstd(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, fp.level), "level");
  if (fp.window_log) check_zstd(ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, fp.window_log), "windowLog");
  check_zstd(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, fp.content_size ? 1 : 0), "fcs");
  check_zstd(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, fp.checksum ? 1 : 0), "checksum");
  if (fp.long_distance) check_zstd(ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, 1), "ldm");
  if (fp.literal_mode) check_zstd(ZSTD_CCtx_setParameter(cctx, ZSTD_c_literalCompressionMode, fp.literal_mode), "lit");
  if (fp.target_block) {
    check_zstd(ZSTD_CCtx_setParameter(cctx, ZSTD_c_targetCBlockSize, static_cast<int>(fp.target_block)), "tcb");
  }
  Bytes out(ZSTD_compressBound(data.size()) + 1024 + (fp.flush_every ? data.size() / fp.flush_every * 16 : 0));
  size_t written = 0;
  if (!fp.flush_every && !fp.streamed) {
    written = ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size());
    check_zstd(written, "compress2");
  } else {
    if (!fp.streamed) check_zstd(ZSTD_CCtx_setPledgedSrcSize(cctx, data.size()), "pledge");
    const size_t step = fp.flush_every ? fp.flush_every : data.size() + 1;
    size_t pos = 0;
    for (;;) {
      const size_t n = std::min(step, data.size() - pos);
      const bool last = pos + n == data.size();
      ZSTD_inBuffer in{data.data() + pos, n, 0};
      for (;;) {
        ZSTD_outBuffer o{out.data(), out.size(), written};
        const size_t r = ZSTD_compressStream2(cctx, &o, &in, last ? ZSTD_e_end : ZSTD_e_flush);
        check_zstd(r, "compressStream2");
        written = o.pos;
        if (r == 0 && in.pos == in.size) break;
        if (o.pos == o.size) out.resize(out.size() * 2);
      }
      pos += n;
      if (last) break;
    }
  }
  ZSTD_freeCCtx(cctx);
  out.resize(written);
  return out;
}

inline Bytes skippable_frame(uint32_t nibble, size_t n, uint64_t seed) {
  Bytes out(8 + n);
  const uint32_t magic = 0x184D2A50u | (nibble & 15u);
  const uint32_t size = static_cast<uint32_t>(n);
  std::memcpy(out.data(), &magic, 4);
  std::memcpy(out.data() + 4, &size, 4);
  Rng rng(seed);
  for (size_t i = 0; i < n; ++i) out[8 + i] = static_cast<uint8_t>(rng.next());
  return out;
}

// libzstd's answer, with windows up to 2^31 accepted. Returns false on error.
inline bool reference_decode(const Bytes& src, Bytes* out, size_t capacity) {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 31);
  out->assign(capacity, 0);
  const size_t r = ZSTD_decompressDCtx(d, out->data(), capacity, src.data(), src.size());
  ZSTD_freeDCtx(d);
  if (ZSTD_isError(r)) return false;
  out->resize(r);
  return true;
}

}  // namespace zarrgpu::zstd::testing
