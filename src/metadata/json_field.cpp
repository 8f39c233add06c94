#include "metadata/json_field.hpp"

#include <limits>

namespace zarrgpu::metadata {

FieldPath FieldPath::operator/(std::string_view key) const {
  FieldPath p{node, field};
  if (!p.field.empty()) p.field += '.';
  p.field += key;
  return p;
}

FieldPath FieldPath::operator[](std::size_t index) const {
  FieldPath p{node, field};
  p.field += '[' + std::to_string(index) + ']';
  return p;
}

void fail(ErrorKind kind, const FieldPath& at, std::string_view what) {
  // The context carries the node; the cause repeats it only for the root,
  // whose empty path the context omits from the message.
  std::string cause;
  if (at.node && at.node->empty()) cause = "root node, ";
  if (at.field.empty()) {
    cause += "document: ";
  } else {
    cause += "field '" + at.field + "': ";
  }
  cause += what;
  ErrorContext context;
  context.array = std::string(at.node.value_or(""));
  throw Error(kind, std::move(cause), std::move(context));
}

std::string_view json_kind(const json& j) noexcept {
  switch (j.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a non-integer number";
    default: return "an unsupported JSON value";
  }
}

namespace {
[[noreturn]] void fail_type(const json& j, const FieldPath& at, std::string_view expected) {
  fail(ErrorKind::invalid_metadata, at,
       "expected " + std::string(expected) + ", got " + std::string(json_kind(j)));
}
}  // namespace

void expect_object(const json& j, const FieldPath& at) {
  if (!j.is_object()) fail_type(j, at, "an object");
}

void expect_array(const json& j, const FieldPath& at) {
  if (!j.is_array()) fail_type(j, at, "an array");
}

const json& require(const json& obj, std::string_view key, const FieldPath& at) {
  expect_object(obj, at);
  const json* v = find(obj, key);
  if (v == nullptr) fail(ErrorKind::invalid_metadata, at / key, "required field is missing");
  return *v;
}

const json* find(const json& obj, std::string_view key) noexcept {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string as_string(const json& j, const FieldPath& at) {
  if (!j.is_string()) fail_type(j, at, "a string");
  return j.get<std::string>();
}

bool as_bool(const json& j, const FieldPath& at) {
  if (!j.is_boolean()) fail_type(j, at, "a boolean");
  return j.get<bool>();
}

std::int64_t as_int(const json& j, const FieldPath& at) {
  if (j.is_number_unsigned()) {
    auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(ErrorKind::invalid_metadata, at, "integer " + std::to_string(u) + " is out of range");
    return static_cast<std::int64_t>(u);
  }
  if (!j.is_number_integer()) fail_type(j, at, "an integer");
  return j.get<std::int64_t>();
}

std::vector<std::uint64_t> as_extents(const json& j, const FieldPath& at, std::uint64_t min_value) {
  expect_array(j, at);
  std::vector<std::uint64_t> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    if (e.is_number_integer() && !e.is_number_unsigned() && e.get<std::int64_t>() < 0)
      fail(ErrorKind::invalid_metadata, at[i],
           "must be " + std::string(min_value > 0 ? "positive" : "non-negative") + ", got " +
               std::to_string(e.get<std::int64_t>()));
    if (!e.is_number_integer()) fail_type(e, at[i], "a non-negative integer");
    auto v = e.get<std::uint64_t>();
    if (v < min_value)
      fail(ErrorKind::invalid_metadata, at[i], "must be positive, got " + std::to_string(v));
    out.push_back(v);
  }
  return out;
}

std::uint64_t checked_product(const std::vector<std::uint64_t>& extents, const FieldPath& at) {
  std::uint64_t n = 1;
  for (auto e : extents) {
    if (e != 0 && n > std::numeric_limits<std::uint64_t>::max() / e)
      fail(ErrorKind::invalid_metadata, at, "the number of elements overflows 64 bits");
    n *= e;
  }
  return n;
}

void check_byte_size(const std::vector<std::uint64_t>& extents, std::size_t element_size, const FieldPath& at) {
  for (auto e : extents) if (e == 0) return;
  std::uint64_t n = element_size;
  for (auto e : extents) {
    if (__builtin_mul_overflow(n, e, &n) || n > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      fail(ErrorKind::invalid_metadata, at,
           "holds more than 2^63 bytes of " + std::to_string(element_size) + "-byte elements");
  }
}

}  // namespace zarrgpu::metadata
