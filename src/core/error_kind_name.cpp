#include "core/error_kind_name.hpp"

namespace zarrgpu {

std::string_view error_kind_name(ErrorKind k) noexcept {
  switch (k) {
    case ErrorKind::invalid_argument: return "invalid_argument";
    case ErrorKind::not_found: return "not_found";
    case ErrorKind::invalid_metadata: return "invalid_metadata";
    case ErrorKind::unsupported: return "unsupported";
    case ErrorKind::corrupt_data: return "corrupt_data";
    case ErrorKind::io: return "io";
    case ErrorKind::device: return "device";
    case ErrorKind::internal: return "internal";
    case ErrorKind::resource_exhausted: return "resource_exhausted";
  }
  return "internal";
}

ErrorKind error_kind_from_name(std::string_view name) noexcept {
  for (ErrorKind k : {ErrorKind::invalid_argument, ErrorKind::not_found, ErrorKind::invalid_metadata, ErrorKind::unsupported,
                      ErrorKind::corrupt_data, ErrorKind::io, ErrorKind::device, ErrorKind::internal,
                      ErrorKind::resource_exhausted})
    if (error_kind_name(k) == name) return k;
  return ErrorKind::internal;
}

}  // namespace zarrgpu
