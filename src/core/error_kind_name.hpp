// ErrorKind as an identifier ("invalid_argument", "not_found", …): the names
// Python's exceptions carry in `kind` and the cache service's answers use.
#pragma once

#include <string_view>

#include "zarrgpu/error.hpp"

namespace zarrgpu {

std::string_view error_kind_name(ErrorKind k) noexcept;
ErrorKind error_kind_from_name(std::string_view name) noexcept;  // internal when unknown

}  // namespace zarrgpu
