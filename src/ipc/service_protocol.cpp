#include "ipc/service_protocol.hpp"

namespace zarrgpu::ipc {

nlohmann::json parse_message(std::string_view text) {
  using json = nlohmann::json;
  bool too_deep = false;
  json j = json::parse(
      text,
      [&](int depth, json::parse_event_t, json&) {
        if (static_cast<std::size_t>(depth) > kMaxRequestDepth) too_deep = true;
        return !too_deep;
      },
      /*allow_exceptions=*/false);
  if (too_deep) throw Error(ErrorKind::invalid_argument, "message nested deeper than " + std::to_string(kMaxRequestDepth) + " levels");
  if (j.is_discarded()) throw Error(ErrorKind::invalid_argument, "message is not JSON");
  if (!j.is_object()) throw Error(ErrorKind::invalid_argument, "message is not a JSON object");
  return j;
}

nlohmann::json error_answer(const Error& e) {
  const ErrorContext& c = e.context();
  return {{"ok", false},
          {"error", {{"kind", std::string(error_kind_name(e.kind()))},
                     {"message", e.what()},
                     {"cause", e.cause()},
                     {"array", c.array},
                     {"chunk_key", c.chunk_key},
                     {"codec", c.codec},
                     {"store", c.store},
                     {"document", c.document}}}};
}

void throw_if_error(const nlohmann::json& answer) {
  if (answer.value("ok", false)) return;
  const auto it = answer.find("error");
  if (it == answer.end() || !it->is_object()) throw Error(ErrorKind::internal, "the cache service answered without ok or error");
  const nlohmann::json& e = *it;
  auto text = [&](const char* k) { return e.contains(k) && e[k].is_string() ? e[k].get<std::string>() : std::string(); };
  ErrorContext c{text("array"), text("chunk_key"), text("codec"), text("store"), text("document")};
  throw Error(error_kind_from_name(text("kind")), "cache service: " + text("cause"), c);
}

}  // namespace zarrgpu::ipc
