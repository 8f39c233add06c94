// DEFLATE (RFC 1951) inside its two wrappers: gzip members (RFC 1952) and
// zlib streams (RFC 1950), through zlib. Shared by `gzip` and `numcodecs.zlib`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "zarrgpu/buffer.hpp"

namespace zarrgpu::codec {

// Inflates every gzip member or zlib stream in `in`, one after another (a
// gzip file may hold several members, RFC 1952 §2.2), checking each one's
// CRC-32/Adler-32. With expected_size > 0 the output never grows past it and
// any other size is corrupt_data; 0 = unknown, the buffer grows as needed.
// Errors name `codec`.
Bytes inflate_all(std::span<const std::byte> in, std::size_t expected_size, std::string_view codec);
// The same, never growing the output past `max_size` bytes: decoding to more
// is corrupt_data.
Bytes inflate_at_most(std::span<const std::byte> in, std::size_t max_size, std::string_view codec);
// The most a DEFLATE stream of `decoded_size` bytes takes in either wrapper
// (zlib's compressBound), with room for a gzip header's optional fields.
std::size_t max_deflate_size(std::size_t decoded_size);
// The same into exactly out.size() bytes.
void inflate_into(std::span<const std::byte> in, std::span<std::byte> out, std::string_view codec);

// `level` as zlib takes it: -1 (its default, 6) to 9; anything else is
// Error(invalid_metadata) naming `codec` (levels are checked when encoding only).
int deflate_level(std::int64_t level, std::string_view codec);

// A gzip member as Python's gzip module writes it (numcodecs.GZip): no file
// name, mtime 0, XFL from the level, OS 255 (unknown).
Bytes gzip_member(std::span<const std::byte> in, int level, std::string_view codec);
// A zlib stream as zlib.compress(data, level) writes it (numcodecs.Zlib).
Bytes zlib_stream(std::span<const std::byte> in, int level, std::string_view codec);

}  // namespace zarrgpu::codec
