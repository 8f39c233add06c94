// Whole metadata documents: the zarr.json entry point and the format 2
// pieces shared by .zarray and .zgroup.
#pragma once

#include "metadata/json_field.hpp"

namespace zarrgpu::metadata {

// The entry point behind zarrgpu::parse_zarr_json, for callers (consolidated
// metadata) that already have a FieldPath.
NodeMetadata parse_zarr_json(const json& doc, const FieldPath& at);

void expect_zarr_format(const json& doc, int expected, const FieldPath& at);
// .zattrs (null when the file is absent) -> attributes.
json parse_zattrs(const json& zattrs, const FieldPath& at);

// Whether `e`, thrown while reading one node's metadata, makes that node an
// UnreadableNode in its group's listing (a data type, codec or extension we do
// not implement, a broken document) rather than failing the listing (I/O).
bool makes_node_unreadable(const Error& e) noexcept;
// The "node_type" a zarr.json declares, if it is "array" or "group"; else "".
std::string declared_node_type(const json& zarr_json);

}  // namespace zarrgpu::metadata
