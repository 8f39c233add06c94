// Array zarr.json (Zarr v3 core §"Array metadata").
#pragma once

#include "metadata/json_field.hpp"

namespace zarrgpu::metadata {

// `doc` is an object whose zarr_format and node_type were already checked.
ArrayMetadata parse_array_v3(const json& doc, const FieldPath& at);

// Zarr v3 core §"Extensions": an unknown member is ignored only when it is
// an object with "must_understand": false; `known` lists the core members.
void check_extension_members(const json& doc, std::initializer_list<std::string_view> known,
                             const FieldPath& at);

}  // namespace zarrgpu::metadata
