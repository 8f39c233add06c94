// Array and group metadata as one JSON document for the Python layer
// (zarrgpu/_metadata.py turns it into Python values).
#pragma once

#include <nanobind/nanobind.h>

#include "zarrgpu/metadata.hpp"

namespace zarrgpu::python {

json describe(const ArrayMetadata& m);
json describe(const GroupMetadata& m);
json describe(const NodeMetadata& m);
// A JSON document as a Python object (via the json module; metadata is small).
nanobind::object to_python(const json& doc);

}  // namespace zarrgpu::python
