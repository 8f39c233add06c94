// The Zarr nodes a command works on: the node a STORE[/PATH] argument names
// and, for a group, every node below it (consolidated metadata when present).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "store_location.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::cli {

struct NodeEntry {
  std::string path;  // inside the store ("" = the store root)
  TreeNode metadata;  // the named node itself is never unreadable (its error is thrown)
  bool is_array() const noexcept { return std::holds_alternative<ArrayMetadata>(metadata); }
  bool is_unreadable() const noexcept { return std::holds_alternative<UnreadableNode>(metadata); }
  int zarr_format() const;
};

struct NodeTree {
  std::shared_ptr<Store> store;
  StoreLocation location;
  bool consolidated = false;
  std::vector<NodeEntry> nodes;  // the named node first, then its descendants by path
};

// Opens the store read-only and reads the tree. Errors: Error(not_found…), and
// the named node's own error; a node below it that cannot be opened is listed
// as an UnreadableNode.
// consolidated: as Group::open (nullopt: consolidated metadata when present).
NodeTree open_tree(const StoreLocation& location, std::optional<bool> consolidated = std::nullopt);

// Dimension names (v3 dimension_names, v2 `_ARRAY_DIMENSIONS`, both in
// ArrayMetadata::dimension_names); "" for unnamed; empty when the array has none.
std::vector<std::string> dimension_names_of(const ArrayMetadata& m);

// "a" + "b" -> "a/b"; "" + "b" -> "b".
std::string join_node_path(const std::string& parent, const std::string& child);
// "a/b" relative to "a" -> "b"; to "" -> "a/b".
std::string relative_node_path(const std::string& path, const std::string& base);
// Depth of `path` below `base` (0 = base itself).
int node_depth(const std::string& path, const std::string& base);

}  // namespace zarrgpu::cli
