// Where a command-line STORE[/PATH] points: the store root and the node path
// inside it. `data.zarr/air` -> root `data.zarr`, path `air`: the root is the
// topmost directory of an unbroken run of Zarr nodes (a directory with
// zarr.json, .zgroup or .zarray) that contains the given path.
#pragma once

#include <optional>
#include <string>

namespace zarrgpu::cli {

struct StoreLocation {
  std::string root;  // a directory path, "memory://…" or a URL ("https://…")
  std::string path;  // "" = the root node; "a/b" otherwise
};

// `explicit_path` (--array / --path) disables the search: `arg` is the root.
StoreLocation locate_store(const std::string& arg, const std::optional<std::string>& explicit_path);

// Strips leading and trailing '/' and collapses "//": "/a//b/" -> "a/b".
std::string normalize_node_path(const std::string& p);

// Whether `dir` holds zarr.json, .zgroup or .zarray.
bool is_zarr_node_dir(const std::string& dir);

}  // namespace zarrgpu::cli
