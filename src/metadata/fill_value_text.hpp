// The JSON text forms of string and bytes fill values (zarr-python 3,
// zarr/core/dtype/npy/bytes.py and string.py): base64 for bytes (RFC 4648 §4,
// Python's base64.standard_b64encode), and fixed_length_utf32 elements as
// UTF-8 JSON strings.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zarrgpu::metadata {

std::string base64_encode(std::span<const std::byte> data);
// nullopt when `text` is not padded standard base64.
std::optional<std::vector<std::byte>> base64_decode(std::string_view text);

// UTF-8 (already validated by the JSON parser) -> UTF-32LE code units.
std::vector<std::byte> utf8_to_utf32le(std::string_view text);
// UTF-32LE code units up to the first NUL (NumPy's str_ drops trailing NULs)
// -> UTF-8; code points that are not Unicode scalar values become U+FFFD.
std::string utf32le_to_utf8(std::span<const std::byte> units);

}  // namespace zarrgpu::metadata
