// Fill values (Zarr v3 core §"fill_value"; Zarr v2 §"fill_value").
#pragma once

#include "metadata/json_field.hpp"

namespace zarrgpu::metadata {

// `at` names the field for errors (usually node / "fill_value").
FillValue parse_fill_value(const json& j, DataType t, int zarr_format, const FieldPath& at);

}  // namespace zarrgpu::metadata
