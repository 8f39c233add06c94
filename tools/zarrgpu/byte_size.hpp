// Byte counts as people write them: "2GiB", "512M", "1e9", "4096".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zarrgpu::cli {

// Suffixes K/M/G/T (with optional "iB" or "B") are powers of 1024; "KB"… too,
// as most tools treat them. nullopt for anything else.
std::optional<std::uint64_t> parse_byte_size(std::string_view s);

// "0 B", "1.5 KiB", "133.2 MiB", "8.00 GiB".
std::string format_bytes(double bytes);

// "1:02:03" or "4:05" (minutes:seconds), "--:--" when unknown.
std::string format_duration(double seconds);

}  // namespace zarrgpu::cli
