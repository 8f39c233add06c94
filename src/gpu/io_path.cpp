#include "gpu/io_path.hpp"

namespace zarrgpu::gpu {

const char* to_string(IoPath p) noexcept {
  switch (p) {
    case IoPath::posix: return "posix";
    case IoPath::gds: return "gds";
    case IoPath::gds_compat: return "gds-compat";
  }
  return "?";
}

IoRequest io_request() { return config().io; }

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
