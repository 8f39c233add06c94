// zarrgpu::Error -> the exception classes of zarrgpu.errors (one per ErrorKind),
// carrying the kind, the cause and the context fields as attributes.
#pragma once

#include <nanobind/nanobind.h>

namespace zarrgpu::python {

void register_error_translator(nanobind::module_& m);

}  // namespace zarrgpu::python
