// The cache service's wire protocol (docs/ipc.md, "The cache service"):
// requests and answers are JSON objects in length-prefixed frames
// (unix_socket.hpp); errors travel as {"ok": false, "error": {...}} with the
// kinds of zarrgpu::ErrorKind.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error_kind_name.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {

inline constexpr int kProtocolVersion = 1;
// A request is small: names, a store path and a selection.
inline constexpr std::size_t kMaxRequestBytes = 256 * 1024;
inline constexpr std::size_t kMaxRequestDepth = 8;

// Parses a frame's JSON: an object nested at most kMaxRequestDepth deep.
// Error(invalid_argument) otherwise.
nlohmann::json parse_message(std::string_view text);

nlohmann::json error_answer(const Error& e);
// Throws the Error an answer carries, if it carries one.
void throw_if_error(const nlohmann::json& answer);

}  // namespace zarrgpu::ipc
