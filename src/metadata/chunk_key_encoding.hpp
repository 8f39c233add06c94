// Zarr v3 core §"chunk_key_encoding": "default" and "v2".
#pragma once

#include "metadata/json_field.hpp"

namespace zarrgpu::metadata {

ChunkKeyEncoding parse_chunk_key_encoding(const json& j, const FieldPath& at);
json chunk_key_encoding_to_json(const ChunkKeyEncoding& e);
// Format 2 `dimension_separator` ("." when absent).
ChunkKeyEncoding parse_dimension_separator(const json* j, const FieldPath& at);

}  // namespace zarrgpu::metadata
