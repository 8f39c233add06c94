// The data_type member of zarr.json (Zarr v3 §"data_type"; zarr-python 3's
// forms for its NumPy types, zarr/core/dtype/npy/).
#pragma once

#include "metadata/json_field.hpp"

namespace zarrgpu::metadata {

// A name ("float32", "string") or {"name", "configuration"}. Throws
// Error(unsupported) for an unknown type, invalid_metadata for a malformed one.
DataType parse_data_type_v3(const json& j, const FieldPath& at);

}  // namespace zarrgpu::metadata
