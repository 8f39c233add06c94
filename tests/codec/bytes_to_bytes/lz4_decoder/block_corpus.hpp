// Test inputs for the LZ4 block decoder: blocks written by liblz4 with each of
// its compressors (default, accelerated, HC at several levels) over the
// Zstandard tests' data generators, and liblz4's safe decoder as reference.
#pragma once

#include <lz4.h>
#include <lz4hc.h>

#include <stdexcept>
#include <string>

#include "codec/bytes_to_bytes/lz4/decoder/numcodecs_frame.hpp"
#include "codec/bytes_to_bytes/zstd_decoder/frame_corpus.hpp"

namespace zarrgpu::lz4::testing {

using zstd::testing::Bytes;
using zstd::testing::data_kind_name;
using zstd::testing::DataKind;
using zstd::testing::make_data;
using zstd::testing::Rng;

// How liblz4 writes a block: LZ4_compress_default, LZ4_compress_fast with an
// acceleration, or LZ4_compress_HC with a level.
struct Compressor {
  enum Kind { fast, hc } kind = fast;
  int level = 1;  // acceleration (fast; 1 = LZ4_compress_default) or HC level
  std::string name() const { return (kind == fast ? "fast" : "hc") + std::to_string(level); }
};

inline Bytes compress_block(const Bytes& data, Compressor c) {
  Bytes out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(data.size()))));
  const char* src = reinterpret_cast<const char*>(data.data());
  char* dst = reinterpret_cast<char*>(out.data());
  const int n_in = static_cast<int>(data.size()), cap = static_cast<int>(out.size());
  int n = 0;
  if (c.kind == Compressor::hc)
    n = LZ4_compress_HC(src, dst, n_in, cap, c.level);
  else if (c.level == 1)
    n = LZ4_compress_default(src, dst, n_in, cap);
  else
    n = LZ4_compress_fast(src, dst, n_in, cap, c.level);
  if (n <= 0) throw std::runtime_error("liblz4 failed to compress");
  out.resize(static_cast<size_t>(n));
  return out;
}

// numcodecs.lz4's chunk: 4-byte little-endian decoded size, then the block.
inline Bytes numcodecs_frame(const Bytes& data, Compressor c) {
  const Bytes block = compress_block(data, c);
  Bytes out(4);
  const uint32_t n = static_cast<uint32_t>(data.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  out.insert(out.end(), block.begin(), block.end());
  return out;
}

// liblz4's safe decoder: the decoded size, or -1 when it rejects the block.
inline long reference_decode(const Bytes& src, size_t capacity, Bytes* out) {
  out->assign(capacity, 0);
  const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(src.data()), reinterpret_cast<char*>(out->data()),
                                    static_cast<int>(src.size()), static_cast<int>(capacity));
  if (r < 0) return -1;
  out->resize(static_cast<size_t>(r));
  return r;
}

inline constexpr size_t kGuard = 64;
inline constexpr uint8_t kGuardByte = 0xA5;

// Our decode into `capacity` bytes followed by guard bytes; `guard_ok` tells
// whether the guard survived. On success `out` holds the decoded bytes.
struct Guarded {
  Status status;
  Bytes out;
  bool guard_ok;
};
template <typename Decode>
Guarded guarded(Decode decode, const Bytes& src, size_t capacity) {
  Bytes dst(capacity + kGuard, kGuardByte);
  size_t n = 0;
  const Status st = decode(src.data(), src.size(), dst.data(), capacity, &n);
  bool guard_ok = true;
  for (size_t i = capacity; i < dst.size(); ++i) guard_ok = guard_ok && dst[i] == kGuardByte;
  dst.resize(st == Status::ok ? n : 0);
  return {st, std::move(dst), guard_ok};
}
inline Guarded guarded_block(const Bytes& src, size_t capacity) { return guarded(decode_block, src, capacity); }
inline Guarded guarded_frame(const Bytes& src, size_t capacity) {
  return guarded(decode_numcodecs_frame, src, capacity);
}

}  // namespace zarrgpu::lz4::testing
