#include "zarrgpu/error.hpp"

namespace zarrgpu {

const char* to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::invalid_argument: return "invalid argument";
    case ErrorKind::not_found: return "not found";
    case ErrorKind::invalid_metadata: return "invalid metadata";
    case ErrorKind::unsupported: return "unsupported";
    case ErrorKind::corrupt_data: return "corrupt data";
    case ErrorKind::io: return "I/O error";
    case ErrorKind::device: return "device error";
    case ErrorKind::internal: return "internal error";
    case ErrorKind::resource_exhausted: return "resource exhausted";
  }
  return "error";
}

namespace {
std::string format_message(ErrorKind kind, const std::string& cause, const ErrorContext& c) {
  std::string m = to_string(kind);
  auto add = [&m](const char* label, const std::string& v) {
    if (!v.empty()) { m += ", "; m += label; m += " '"; m += v; m += "'"; }
  };
  if (!c.array.empty() || !c.chunk_key.empty() || !c.codec.empty() || !c.store.empty() || !c.document.empty()) {
    m += " (";
    std::string ctx;
    m.swap(ctx);
    add("store", c.store);
    if (!c.array.empty() || !c.chunk_key.empty() || !c.document.empty())
      add("array", c.array.empty() ? std::string("/") : c.array);
    add("document", c.document);
    add("chunk", c.chunk_key);
    add("codec", c.codec);
    ctx += m.substr(2);  // drop the leading ", "
    m.swap(ctx);
    m += ")";
  }
  m += ": ";
  m += cause;
  return m;
}
}  // namespace

Error::Error(ErrorKind kind, std::string cause, ErrorContext context)
    : std::runtime_error(format_message(kind, cause, context)),
      kind_(kind), cause_(std::move(cause)), context_(std::move(context)) {}

Error Error::with_context(const ErrorContext& outer) const {
  ErrorContext c = context_;
  if (c.array.empty()) c.array = outer.array;
  if (c.chunk_key.empty()) c.chunk_key = outer.chunk_key;
  if (c.codec.empty()) c.codec = outer.codec;
  if (c.store.empty()) c.store = outer.store;
  if (c.document.empty()) c.document = outer.document;
  return Error(kind_, cause_, std::move(c));
}

}  // namespace zarrgpu
