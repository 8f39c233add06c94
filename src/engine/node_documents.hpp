// Writing a node's metadata documents, and keeping every consolidated
// metadata document above it in step (zarr-python 3's inline form in a group's
// zarr.json, format 2 `.zmetadata`): a node zarrgpu creates, resizes or gives
// new attributes is seen through its groups at once, as zarr-python's
// consolidated readers expect. Each document is written whole through
// Store::write (a temporary name, then a rename), so a reader sees the old
// document or the new one.
#pragma once

#include <string>

#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu {

// Reads the node at `path`: an array or a group (format 3 first, then 2).
NodeMetadata open_node(Store& store, const std::string& path);

}  // namespace zarrgpu

namespace zarrgpu::engine {

// zarr.json, or .zarray/.zgroup with .zattrs (written when there are
// attributes, erased when there are none). A format 3 group keeps the inline
// consolidated metadata its zarr.json already has.
void write_node_documents(Store& store, const std::string& path, const NodeMetadata& node);

// Sets the entry of `path` in the consolidated metadata of every group above
// it (and of `path` itself, for a format 2 group's own .zgroup/.zattrs) that
// has some; `node` == nullptr removes it. drop_below: entries below `path`
// go too (the node was replaced). Groups without consolidated metadata are
// left alone.
void update_consolidated(Store& store, const std::string& path, const NodeMetadata* node, bool drop_below = false);

// The consolidated metadata document of the group at `path` rebuilt from the
// members' own metadata and written (zarr.json inline for format 3,
// .zmetadata for format 2).
void write_consolidated(std::shared_ptr<Store> store, const std::string& path);

// A metadata document's bytes (nullopt: not found). A file larger than a
// document may be (max_metadata_document_bytes) is Error(invalid_metadata)
// before it is read: a link from zarr.json to an 8 GiB file is not loaded.
std::optional<Bytes> read_metadata_document(Store& store, const std::string& key, const std::string& path);
// The same refusal alone, for documents read in a batch.
void check_metadata_document_size(Store& store, const std::string& key, const std::string& path);

}  // namespace zarrgpu::engine
