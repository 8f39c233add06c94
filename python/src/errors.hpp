// zarrgpu::Error -> the exception classes of zarrgpu.errors (one per ErrorKind),
// carrying the kind, the cause and the context fields as attributes.
#pragma once

#include <nanobind/nanobind.h>

#include "zarrgpu/error.hpp"

namespace zarrgpu::python {

// The exception's `kind` attribute: the enumerator's name ("invalid_metadata").
const char* kind_name(ErrorKind kind);

void register_error_translator(nanobind::module_& m);

}  // namespace zarrgpu::python
