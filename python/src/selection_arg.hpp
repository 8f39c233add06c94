// A selection as the Python layer passes it (zarrgpu/_indexing.py): one
// (start, stop, step, is_index) tuple per dimension, None for omitted parts, or a
// 1-D int64 NumPy array of positions (orthogonal indexing).
#pragma once

#include <nanobind/nanobind.h>

#include "zarrgpu/selection.hpp"

namespace zarrgpu::python {

Selection selection_from_python(nanobind::handle dims);

}  // namespace zarrgpu::python
