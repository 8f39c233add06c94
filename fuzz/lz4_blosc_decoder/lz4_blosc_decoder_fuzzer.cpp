// libFuzzer target for the host build of the LZ4 and Blosc 1 decoders. The
// first byte picks the input's kind (0: numcodecs lz4 chunk, 1: raw LZ4 block,
// 2: Blosc chunk), the next two the output capacity (in units of 8 bytes);
// the rest is the input. Checks: no crash (ASan/UBSan), guard bytes after the
// capacity untouched, and agreement with liblz4 / c-blosc: what we decode
// they decode to the same bytes; what only they decode breaks a rule their
// codecs do not check (LZ4 offset 0 or end-of-block rules; Zstandard streams
// where libzstd is lenient, see the Zstd decoder's tests).
#include <blosc.h>
#include <lz4.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "codec/bytes_to_bytes/blosc/decoder/decode_chunk.hpp"
#include "codec/bytes_to_bytes/lz4/decoder/numcodecs_frame.hpp"

namespace {

constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xEE;

std::vector<uint8_t> guarded_output(size_t capacity) { return std::vector<uint8_t>(capacity + kGuard, kGuardByte); }

void expect_guard_intact(const std::vector<uint8_t>& out, size_t capacity) {
  for (size_t i = capacity; i < out.size(); ++i)
    if (out[i] != kGuardByte) std::abort();  // wrote past the capacity
}

// memcmp's pointers must not be null, even for 0 bytes (an empty vector's data()).
bool same_bytes(const uint8_t* a, const uint8_t* b, size_t n) { return n == 0 || std::memcmp(a, b, n) == 0; }

bool lz4_rule_only_we_check(uint32_t st) {
  return st == static_cast<uint32_t>(zarrgpu::lz4::Status::zero_offset) ||
         st == static_cast<uint32_t>(zarrgpu::lz4::Status::end_conditions);
}

// liblz4's safe decoder on src into `capacity` bytes: the size, or -1.
long liblz4_decode(const uint8_t* src, size_t size, size_t capacity, std::vector<uint8_t>* out) {
  out->assign(capacity, 0);
  const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(out->data()),
                                    static_cast<int>(size), static_cast<int>(capacity));
  return r;
}

void check_lz4_block(const uint8_t* data, size_t size, size_t capacity) {
  std::vector<uint8_t> out = guarded_output(capacity);
  size_t n = 0;
  const auto st = zarrgpu::lz4::decode_block(data, size, out.data(), capacity, &n);
  expect_guard_intact(out, capacity);
  std::vector<uint8_t> ref;
  const long r = liblz4_decode(data, size, capacity, &ref);
  if (st == zarrgpu::lz4::Status::ok) {
    if (n > capacity || r < 0 || static_cast<size_t>(r) != n || !same_bytes(ref.data(), out.data(), n))
      std::abort();
  } else if (r >= 0 && !lz4_rule_only_we_check(static_cast<uint32_t>(st))) {
    std::abort();
  }
}

void check_numcodecs_lz4(const uint8_t* data, size_t size, size_t capacity) {
  std::vector<uint8_t> out = guarded_output(capacity);
  size_t n = 0;
  const auto st = zarrgpu::lz4::decode_numcodecs_frame(data, size, out.data(), capacity, &n);
  expect_guard_intact(out, capacity);
  if (st != zarrgpu::lz4::Status::ok) return;
  if (n != zarrgpu::lz4::numcodecs_declared_size(data)) std::abort();
  std::vector<uint8_t> ref;
  const long r = liblz4_decode(data + 4, size - 4, n, &ref);
  if (r < 0 || static_cast<size_t>(r) != n || !same_bytes(ref.data(), out.data(), n)) std::abort();
}

void check_blosc_chunk(const uint8_t* data, size_t size, size_t capacity) {
  using zarrgpu::blosc::Codec;
  using zarrgpu::blosc::Status;
  std::vector<uint8_t> out = guarded_output(capacity);
  size_t n = 0;
  uint32_t inner = 0;
  const Status st = zarrgpu::blosc::decode_chunk(data, size, out.data(), capacity, &n, &inner);
  expect_guard_intact(out, capacity);
  // c-blosc trusts the header's cbytes: give it only chunks that hold them.
  if (size < BLOSC_MIN_HEADER_LENGTH) return;
  size_t nbytes = 0, cbytes = 0, blocksize = 0;
  blosc_cbuffer_sizes(data, &nbytes, &cbytes, &blocksize);
  if (cbytes > size) {
    if (st == Status::ok && nbytes != 0) std::abort();
    return;
  }
  std::vector<uint8_t> ref(capacity);
  const int r = blosc_decompress_ctx(data, ref.data(), capacity, 1);
  const bool ref_ok = r >= 0 && static_cast<size_t>(r) == nbytes;
  if (st == Status::ok) {
    if (!ref_ok || n != nbytes || !same_bytes(ref.data(), out.data(), n)) std::abort();
    return;
  }
  if (!ref_ok || st != Status::corrupt_stream) {
    if (ref_ok) std::abort();
    return;
  }
  const auto codec = static_cast<Codec>(data[2] >> 5);
  const bool lenient_reference =
      (codec == Codec::lz4 && lz4_rule_only_we_check(inner)) ||
      (codec == Codec::zstd && (inner == static_cast<uint32_t>(zarrgpu::zstd::Status::corrupt_literals) ||
                                inner == static_cast<uint32_t>(zarrgpu::zstd::Status::corrupt_sequences) ||
                                inner == static_cast<uint32_t>(zarrgpu::zstd::Status::corrupt_block)));
  if (!lenient_reference) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const uint8_t kind = data[0] % 3;
  const size_t capacity = (static_cast<size_t>(data[1]) | (static_cast<size_t>(data[2]) << 8)) * 8;
  data += 3;
  size -= 3;
  if (kind == 0) check_numcodecs_lz4(data, size, capacity);
  if (kind == 1) check_lz4_block(data, size, capacity);
  if (kind == 2) check_blosc_chunk(data, size, capacity);
  return 0;
}
