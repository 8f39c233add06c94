// Reading metadata documents field by field, so that every error names the
// node and the field ("chunk_grid.configuration.chunk_shape[1]") — never a
// bare nlohmann exception.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zarrgpu/error.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::metadata {

// The node a document describes plus the field being read; `field` is a dotted
// path inside the document. Cheap to copy and extend.
struct FieldPath {
  // The node's path in the store ("" = root); nullopt where the caller did not
  // say (the public parse_fill_value), and the caller adds it.
  std::optional<std::string_view> node;
  std::string field;      // "" = the document itself

  FieldPath operator/(std::string_view key) const;  // "a.b"
  FieldPath operator[](std::size_t index) const;    // "a[3]"
};

[[noreturn]] void fail(ErrorKind kind, const FieldPath& at, std::string_view what);

// "object", "array", "string", "number", "boolean", "null" for messages.
std::string_view json_kind(const json& j) noexcept;

void expect_object(const json& j, const FieldPath& at);
void expect_array(const json& j, const FieldPath& at);
// The member `key` of object `obj` (which `at` names); fails if absent.
const json& require(const json& obj, std::string_view key, const FieldPath& at);
// The member or nullptr.
const json* find(const json& obj, std::string_view key) noexcept;

std::string as_string(const json& j, const FieldPath& at);
bool as_bool(const json& j, const FieldPath& at);
std::int64_t as_int(const json& j, const FieldPath& at);
// A list of non-negative integers; each must be >= `min_value` (1 for chunk shapes).
std::vector<std::uint64_t> as_extents(const json& j, const FieldPath& at, std::uint64_t min_value);

// The product of extents, failing on overflow of 2^64.
std::uint64_t checked_product(const std::vector<std::uint64_t>& extents, const FieldPath& at);
// Fails (invalid_metadata) when extents of `element_size`-byte elements hold
// more than 2^63 bytes: the engine's strides and offsets are int64, so an
// array or a chunk larger than that could not be addressed.
void check_byte_size(const std::vector<std::uint64_t>& extents, std::size_t element_size, const FieldPath& at);

}  // namespace zarrgpu::metadata
