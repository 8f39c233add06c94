// CUDA's IPC handles are opaque bytes; descriptors carry them as lower-case hex.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zarrgpu::ipc {

std::string to_hex(const void* bytes, std::size_t n);
bool is_hex(std::string_view s) noexcept;
// Fills `n` bytes from 2n hex digits; false when `s` is not exactly that.
bool from_hex(std::string_view s, void* bytes, std::size_t n) noexcept;

}  // namespace zarrgpu::ipc
