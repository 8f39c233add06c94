#include "codec/array_to_bytes/bytes/byte_swap.hpp"

#include <cstdint>
#include <cstring>

namespace zarrgpu::codec {

namespace {
template <class U, U (*Swap)(U)>
void swap_words(const std::byte* in, std::byte* out, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    U v;
    std::memcpy(&v, in + i * sizeof(U), sizeof(U));
    v = Swap(v);
    std::memcpy(out + i * sizeof(U), &v, sizeof(U));
  }
}
std::uint16_t bswap16(std::uint16_t v) { return __builtin_bswap16(v); }
std::uint32_t bswap32(std::uint32_t v) { return __builtin_bswap32(v); }
std::uint64_t bswap64(std::uint64_t v) { return __builtin_bswap64(v); }
}  // namespace

void byte_swap(std::span<const std::byte> in, std::span<std::byte> out, std::size_t width) noexcept {
  const std::size_t n = in.size() / width;
  switch (width) {
    case 2: swap_words<std::uint16_t, bswap16>(in.data(), out.data(), n); return;
    case 4: swap_words<std::uint32_t, bswap32>(in.data(), out.data(), n); return;
    case 8: swap_words<std::uint64_t, bswap64>(in.data(), out.data(), n); return;
    default:
      for (std::size_t i = 0; i < n; ++i) {
        const std::byte* src = in.data() + i * width;
        std::byte* dst = out.data() + i * width;
        for (std::size_t b = 0; b < width / 2; ++b) {
          std::byte lo = src[b], hi = src[width - 1 - b];
          dst[b] = hi;
          dst[width - 1 - b] = lo;
        }
        if (width % 2) dst[width / 2] = src[width / 2];
      }
  }
}

}  // namespace zarrgpu::codec
