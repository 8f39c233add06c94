#include "node_tree.hpp"

#include "engine/node_documents.hpp"

#include <algorithm>

namespace zarrgpu::cli {

int NodeEntry::zarr_format() const {
  return std::visit([](const auto& m) { return m.zarr_format; }, metadata);
}

std::string join_node_path(const std::string& parent, const std::string& child) {
  if (parent.empty()) return child;
  if (child.empty()) return parent;
  return parent + "/" + child;
}

std::string relative_node_path(const std::string& path, const std::string& base) {
  if (base.empty()) return path;
  if (path == base) return "";
  if (path.size() > base.size() && path.compare(0, base.size(), base) == 0 && path[base.size()] == '/')
    return path.substr(base.size() + 1);
  return path;
}

int node_depth(const std::string& path, const std::string& base) {
  std::string rel = relative_node_path(path, base);
  if (rel.empty()) return 0;
  return 1 + static_cast<int>(std::count(rel.begin(), rel.end(), '/'));
}

NodeTree open_tree(const StoreLocation& location, std::optional<bool> consolidated) {
  NodeTree t;
  t.location = location;
  t.store = open_store(location.root, false);
  NodeMetadata root = open_node(*t.store, location.path);
  const bool group = std::holds_alternative<GroupMetadata>(root);
  std::visit([&](auto& m) { t.nodes.push_back({location.path, std::move(m)}); }, root);
  if (group) {
    Group g = Group::open(t.store, location.path, consolidated);
    t.consolidated = g.is_consolidated();
    for (auto& [rel, meta] : g.tree()) t.nodes.push_back({join_node_path(location.path, rel), meta});
    std::sort(t.nodes.begin() + 1, t.nodes.end(),
              [](const NodeEntry& a, const NodeEntry& b) { return a.path < b.path; });
  }
  return t;
}

std::vector<std::string> dimension_names_of(const ArrayMetadata& m) {
  // The metadata model maps format 2 `_ARRAY_DIMENSIONS` to dimension_names.
  std::vector<std::string> out;
  if (m.dimension_names) {
    for (const auto& n : *m.dimension_names) out.push_back(n.value_or(""));
  }
  return out;
}

}  // namespace zarrgpu::cli
