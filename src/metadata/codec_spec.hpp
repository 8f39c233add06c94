// The `codecs` list of Zarr v3 core §"codecs" as CodecSpecs. Only the
// envelope is checked here (name, configuration, must_understand); each
// codec validates its own configuration when the chain is built.
#pragma once

#include <vector>

#include "metadata/json_field.hpp"

namespace zarrgpu::metadata {

CodecSpec parse_codec_spec(const json& j, const FieldPath& at);
std::vector<CodecSpec> parse_codecs(const json& j, const FieldPath& at);
json codec_spec_to_json(const CodecSpec& c);
json codecs_to_json(const std::vector<CodecSpec>& codecs);

}  // namespace zarrgpu::metadata
