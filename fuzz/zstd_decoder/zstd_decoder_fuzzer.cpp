// libFuzzer target for the host build of the Zstandard decoder. The first
// two bytes choose the output capacity; the rest is the chunk. Checks: no
// crash (ASan/UBSan), guard bytes after the capacity untouched, a successful
// decode agrees with libzstd whenever libzstd also succeeds, and the
// block-parallel entry (the walk to execution, the code the GPU kernels run) agrees
// with decode_frames() exactly: status, decoded size and bytes.
#include <zstd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "codec/bytes_to_bytes/zstd/decoder/decode_frames.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/decode_frames_block_parallel.hpp"

namespace {

constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xEE;

// A fresh output of `capacity` bytes followed by kGuard guard bytes.
std::vector<uint8_t> guarded_output(size_t capacity) { return std::vector<uint8_t>(capacity + kGuard, kGuardByte); }

void expect_guard_intact(const std::vector<uint8_t>& out, size_t capacity) {
  for (size_t i = capacity; i < out.size(); ++i) {
    if (out[i] != kGuardByte) std::abort();  // wrote past the capacity
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t capacity = (static_cast<size_t>(data[0]) | (static_cast<size_t>(data[1]) << 8)) * 8;
  data += 2;
  size -= 2;
  std::vector<uint8_t> out = guarded_output(capacity);
  size_t n = 0;
  const auto st = zarrgpu::zstd::decode_frames(data, size, out.data(), capacity, &n);
  expect_guard_intact(out, capacity);
  if (st == zarrgpu::zstd::Status::ok) {
    if (n > capacity) std::abort();
    std::vector<uint8_t> ref(capacity + 1);
    ZSTD_DCtx* d = ZSTD_createDCtx();
    ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 31);
    const size_t r = ZSTD_decompressDCtx(d, ref.data(), capacity, data, size);
    ZSTD_freeDCtx(d);
    if (!ZSTD_isError(r) && (r != n || std::memcmp(ref.data(), out.data(), n) != 0)) std::abort();
  }

  // Both entries set the size to 0 on failure, and bytes inside the capacity
  // but past the decoded size are unspecified, so the bytes are compared only
  // up to the decoded size of a successful decode (as the host tests do).
  std::vector<uint8_t> bp = guarded_output(capacity);
  size_t bp_n = 0;
  const auto bp_st = zarrgpu::zstd::decode_frames_block_parallel(data, size, bp.data(), capacity, &bp_n);
  expect_guard_intact(bp, capacity);
  if (bp_st != st || bp_n != n) std::abort();
  if (st == zarrgpu::zstd::Status::ok && std::memcmp(bp.data(), out.data(), n) != 0) std::abort();
  return 0;
}
