// Resolving a ByteRange against a value's size, shared by every store so they
// agree on what "past the end" means.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "zarrgpu/store.hpp"

namespace zarrgpu::store {

struct ResolvedRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

// Throws Error(io) naming `key` and the store when the range does not lie
// inside [0, size): a suffix longer than the value, an offset past the end, or
// a bounded range running past the end.
ResolvedRange resolve_range(const ByteRange& range, std::uint64_t size, std::string_view key,
                            const std::string& store);

// A store key must be relative, "/"-separated, with no "", "." or ".." parts.
// Throws Error(invalid_argument).
void check_key(std::string_view key, const std::string& store);

}  // namespace zarrgpu::store
