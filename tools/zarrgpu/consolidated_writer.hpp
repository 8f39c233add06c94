// Consolidated metadata, so xarray and zarr-python open a group with one read
// (the documents come from src/metadata):
// format 3 inline in the root zarr.json ("consolidated_metadata", as
// zarr-python writes it), format 2 `.zmetadata`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "metadata/metadata.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::cli {

// `nodes`: every node below the group at the store root, path relative to it.
// Rewrites the root group's metadata document(s) with the consolidated form.
void write_consolidated(Store& store, const GroupMetadata& root,
                        const std::vector<std::pair<std::string, NodeMetadata>>& nodes);

// The documents themselves (for tests): the root zarr.json, or .zmetadata.
json consolidated_document(const GroupMetadata& root, const std::vector<std::pair<std::string, NodeMetadata>>& nodes);

}  // namespace zarrgpu::cli
