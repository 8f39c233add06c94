#include "codec/bytes_to_bytes/numcodecs/fletcher32.hpp"

namespace zarrgpu::codec {

std::uint32_t fletcher32(std::span<const std::byte> data) noexcept {
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t words = data.size() / 2;
  std::uint32_t sum1 = 0, sum2 = 0;
  // 360 words is the most that cannot overflow the 32-bit sums before folding.
  while (words) {
    std::size_t run = words > 360 ? 360 : words;
    words -= run;
    do {
      sum1 += static_cast<std::uint32_t>(p[0]) << 8 | p[1];
      p += 2;
      sum2 += sum1;
    } while (--run);
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (data.size() % 2) {
    sum1 += static_cast<std::uint32_t>(p[0]) << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return sum2 << 16 | sum1;
}

}  // namespace zarrgpu::codec
