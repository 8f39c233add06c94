// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), RFC 3720 §B.4 — the
// checksum of the Zarr v3 `crc32c` codec. SSE4.2's crc32 instruction when the
// CPU has it (checked at run time), slicing-by-8 tables otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace zarrgpu::codec {

// Continues a CRC: crc32c(b, crc32c(a)) == crc32c(a ++ b). Start with 0.
std::uint32_t crc32c(std::span<const std::byte> data, std::uint32_t crc = 0) noexcept;

// The portable implementation alone (tests compare the two).
std::uint32_t crc32c_portable(std::span<const std::byte> data, std::uint32_t crc = 0) noexcept;

}  // namespace zarrgpu::codec
