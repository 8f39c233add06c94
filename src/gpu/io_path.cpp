#include "gpu/io_path.hpp"

#include <cstdlib>
#include <string>

#include "zarrgpu/error.hpp"

namespace zarrgpu::gpu {

const char* to_string(IoPath p) noexcept {
  switch (p) {
    case IoPath::posix: return "posix";
    case IoPath::gds: return "gds";
    case IoPath::gds_compat: return "gds-compat";
  }
  return "?";
}

std::optional<IoRequest> parse_io_request(std::string_view s) noexcept {
  if (s == "auto" || s.empty()) return IoRequest::auto_;
  if (s == "posix") return IoRequest::posix;
  if (s == "gds") return IoRequest::gds;
  if (s == "gds-compat") return IoRequest::gds_compat;
  return std::nullopt;
}

IoRequest io_request_from_environment() {
  const char* v = std::getenv("ZARRGPU_IO");
  if (!v) return IoRequest::auto_;
  auto r = parse_io_request(v);
  if (!r) throw Error(ErrorKind::invalid_argument, std::string("ZARRGPU_IO='") + v + "' is not auto, posix, gds or gds-compat");
  return *r;
}

IoPath resolve_io_path(IoRequest request, bool cufile_ok, bool true_gds, bool local) noexcept {
  if (!cufile_ok || !local) return IoPath::posix;
  switch (request) {
    case IoRequest::posix: return IoPath::posix;
    case IoRequest::auto_: return true_gds ? IoPath::gds : IoPath::posix;
    case IoRequest::gds: return true_gds ? IoPath::gds : IoPath::gds_compat;
    case IoRequest::gds_compat: return IoPath::gds_compat;
  }
  return IoPath::posix;
}

}  // namespace zarrgpu::gpu
