// Test inputs for the Blosc 1 decoder: chunks written by c-blosc with chosen
// codec, level, shuffle, typesize, block size and split mode over the
// Zstandard tests' data generators; c-blosc's decoder as reference.
#pragma once

#include <blosc.h>

#include <stdexcept>
#include <string>

#include "codec/bytes_to_bytes/blosc/decoder/decode_chunk.hpp"
#include "codec/bytes_to_bytes/zstd_decoder/frame_corpus.hpp"

namespace zarrgpu::blosc::testing {

using zstd::testing::Bytes;
using zstd::testing::data_kind_name;
using zstd::testing::DataKind;
using zstd::testing::make_data;
using zstd::testing::Rng;

struct ChunkParams {
  const char* cname = "lz4";
  int clevel = 5;
  int shuffle = BLOSC_SHUFFLE;  // BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE
  size_t typesize = 4;
  size_t blocksize = 0;  // 0: c-blosc chooses
  int splitmode = BLOSC_FORWARD_COMPAT_SPLIT;
  std::string name() const {
    return std::string(cname) + " clevel " + std::to_string(clevel) + " shuffle " + std::to_string(shuffle) +
           " typesize " + std::to_string(typesize) + " blocksize " + std::to_string(blocksize) + " split " +
           std::to_string(splitmode);
  }
};

inline Bytes compress_chunk(const Bytes& data, const ChunkParams& p) {
  blosc_set_splitmode(p.splitmode);
  Bytes out(data.size() + BLOSC_MAX_OVERHEAD);
  const int n = blosc_compress_ctx(p.clevel, p.shuffle, p.typesize, data.size(), data.data(), out.data(), out.size(),
                                   p.cname, p.blocksize, 1);
  if (n <= 0) throw std::runtime_error("c-blosc failed to compress: " + p.name());
  out.resize(static_cast<size_t>(n));
  return out;
}

// c-blosc's decoder: the decoded size, or -1 when it rejects the chunk (or
// decodes fewer bytes than its header declares). c-blosc trusts the
// header's cbytes, so a chunk that claims more than its size is not given.
inline long reference_decode(const Bytes& chunk, size_t capacity, Bytes* out) {
  out->assign(capacity, 0);
  if (chunk.size() < BLOSC_MIN_HEADER_LENGTH) return -1;
  size_t nbytes = 0, cbytes = 0, blocksize = 0;
  blosc_cbuffer_sizes(chunk.data(), &nbytes, &cbytes, &blocksize);
  if (cbytes > chunk.size()) return -1;
  const int r = blosc_decompress_ctx(chunk.data(), out->data(), capacity, 1);
  if (r < 0 || static_cast<size_t>(r) != nbytes) return -1;
  out->resize(static_cast<size_t>(r));
  return r;
}

inline constexpr size_t kGuard = 64;
inline constexpr uint8_t kGuardByte = 0x5A;

struct Guarded {
  Status status;
  uint32_t inner_status;
  Bytes out;
  bool guard_ok;
};
inline Guarded guarded_decode(const Bytes& chunk, size_t capacity) {
  Bytes dst(capacity + kGuard, kGuardByte);
  size_t n = 0;
  uint32_t inner = 0;
  const Status st = decode_chunk(chunk.data(), chunk.size(), dst.data(), capacity, &n, &inner);
  bool guard_ok = true;
  for (size_t i = capacity; i < dst.size(); ++i) guard_ok = guard_ok && dst[i] == kGuardByte;
  dst.resize(st == Status::ok ? n : 0);
  return {st, inner, std::move(dst), guard_ok};
}

}  // namespace zarrgpu::blosc::testing
