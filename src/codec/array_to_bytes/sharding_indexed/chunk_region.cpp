#include "codec/array_to_bytes/sharding_indexed/chunk_region.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace zarrgpu::codec {

bool ChunkRegion::contiguous() const noexcept {
  // Contiguous iff, after the first axis whose block extent exceeds 1, every
  // later axis is taken whole.
  std::size_t k = 0;
  while (k < block.size() && block[k] == 1) ++k;
  for (++k; k < block.size(); ++k)
    if (block[k] != outer[k]) return false;
  return true;
}

std::size_t ChunkRegion::outer_offset() const noexcept {
  std::uint64_t off = 0;
  for (std::size_t k = 0; k < outer.size(); ++k) off = off * outer[k] + origin[k];
  return static_cast<std::size_t>(off) * element_size;
}

namespace {

// Calls f(outer_byte_offset, block_byte_offset, row_bytes) for each row
// (run along the last axis) of the block.
template <class F>
void for_each_row(const ChunkRegion& r, F&& f) {
  const std::size_t n = r.outer.size();
  if (n == 0) {
    f(std::size_t{0}, std::size_t{0}, r.element_size);
    return;
  }
  for (std::size_t k = 0; k < n; ++k)
    if (r.block[k] == 0) return;
  std::vector<std::size_t> outer_stride(n);
  std::size_t s = r.element_size;
  for (std::size_t k = n; k-- > 0;) {
    outer_stride[k] = s;
    s *= r.outer[k];
  }
  const std::size_t row = r.block[n - 1] * r.element_size;
  std::vector<std::uint64_t> index(n, 0);
  std::size_t outer_off = r.outer_offset(), block_off = 0;
  for (;;) {
    f(outer_off, block_off, row);
    block_off += row;
    std::size_t k = n - 1;
    for (;;) {
      if (k == 0) return;
      --k;
      outer_off += outer_stride[k];
      if (++index[k] < r.block[k]) break;
      outer_off -= outer_stride[k] * r.block[k];
      index[k] = 0;
    }
  }
}

}  // namespace

void ChunkRegion::scatter(const std::byte* block_data, std::byte* outer_data) const noexcept {
  for_each_row(*this, [&](std::size_t o, std::size_t b, std::size_t len) { std::memcpy(outer_data + o, block_data + b, len); });
}

void ChunkRegion::gather(const std::byte* outer_data, std::byte* block_data) const noexcept {
  for_each_row(*this, [&](std::size_t o, std::size_t b, std::size_t len) { std::memcpy(block_data + b, outer_data + o, len); });
}

void ChunkRegion::fill(const std::byte* value, std::byte* outer_data) const noexcept {
  const std::size_t e = element_size;
  for_each_row(*this, [&](std::size_t o, std::size_t, std::size_t len) {
    std::byte* dst = outer_data + o;
    // Doubling memcpy: write one element, then copy what is written.
    std::size_t done = std::min(e, len);
    std::memcpy(dst, value, done);
    while (done < len) {
      const std::size_t n = std::min(done, len - done);
      std::memcpy(dst + done, dst, n);
      done += n;
    }
  });
}

}  // namespace zarrgpu::codec
