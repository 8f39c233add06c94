// libFuzzer target for the host build of the Zstandard decoder. The first
// two bytes choose the output capacity; the rest is the chunk. Checks: no
// crash (ASan/UBSan), guard bytes after the capacity untouched, and a
// successful decode agrees with libzstd whenever libzstd also succeeds.
#include <zstd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "codec/bytes_to_bytes/zstd/decoder/decode_frames.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t capacity = (static_cast<size_t>(data[0]) | (static_cast<size_t>(data[1]) << 8)) * 8;
  data += 2;
  size -= 2;
  constexpr size_t kGuard = 64;
  std::vector<uint8_t> out(capacity + kGuard, 0xEE);
  size_t n = 0;
  const auto st = zarrgpu::zstd::decode_frames(data, size, out.data(), capacity, &n);
  for (size_t i = capacity; i < out.size(); ++i) {
    if (out[i] != 0xEE) std::abort();  // wrote past the capacity
  }
  if (st == zarrgpu::zstd::Status::ok) {
    if (n > capacity) std::abort();
    std::vector<uint8_t> ref(capacity + 1);
    ZSTD_DCtx* d = ZSTD_createDCtx();
    ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 31);
    const size_t r = ZSTD_decompressDCtx(d, ref.data(), capacity, data, size);
    ZSTD_freeDCtx(d);
    if (!ZSTD_isError(r) && (r != n || std::memcmp(ref.data(), out.data(), n) != 0)) std::abort();
  }
  return 0;
}
