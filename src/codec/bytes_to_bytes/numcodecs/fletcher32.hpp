// Fletcher-32 as HDF5 computes it (H5_checksum_fletcher32 in H5checksum.c),
// which numcodecs.fletcher32 follows: big-endian 16-bit words, sums folded
// every 360 words, an odd last byte taken as the high byte of a word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace zarrgpu::codec {

std::uint32_t fletcher32(std::span<const std::byte> data) noexcept;

}  // namespace zarrgpu::codec
