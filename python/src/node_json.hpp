// Array and group metadata as one JSON document for the Python layer
// (zarrgpu/_metadata.py turns it into Python values).
#pragma once

#include <nanobind/nanobind.h>

#include "metadata/metadata.hpp"

namespace zarrgpu::python {

json describe(const ArrayMetadata& m);
json describe(const GroupMetadata& m);
json describe(const NodeMetadata& m);
// An unreadable node: node_type ("array", "group" or null), zarr_format and
// "unreadable": {kind, cause, message} of the error opening it throws.
json describe(const UnreadableNode& m);
json describe(const TreeNode& m);
// A JSON document as Python objects: non-finite numbers become float nan/inf.
nanobind::object to_python(const json& doc);

}  // namespace zarrgpu::python
