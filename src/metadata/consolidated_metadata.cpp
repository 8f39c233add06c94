// Consolidated metadata: zarr-python 3's inline form in a group's zarr.json,
// and format 2 `.zmetadata` (zarr_consolidated_format 1).
#include <set>

#include "metadata/node_metadata.hpp"

namespace zarrgpu {

namespace {
using metadata::FieldPath;
using metadata::fail;

std::string join(std::string_view parent, std::string_view child) {
  if (parent.empty()) return std::string(child);
  std::string p(parent);
  if (p.back() != '/') p += '/';
  return p + std::string(child);
}

bool valid_relative_path(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.back() == '/') return false;
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find('/', start);
    if (end == std::string_view::npos) end = p.size();
    std::string_view part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}
}  // namespace

std::optional<ConsolidatedMetadata> parse_consolidated_v3(const json& group_doc, std::string_view path) {
  const FieldPath at{path, ""};
  metadata::expect_object(group_doc, at);
  const json* cm = metadata::find(group_doc, "consolidated_metadata");
  if (cm == nullptr || cm->is_null()) return std::nullopt;
  const FieldPath cat = at / "consolidated_metadata";
  metadata::expect_object(*cm, cat);
  const std::string kind = metadata::as_string(metadata::require(*cm, "kind", cat), cat / "kind");
  if (kind != "inline") fail(ErrorKind::unsupported, cat / "kind", "unknown kind \"" + kind + "\"");
  const json& nodes = metadata::require(*cm, "metadata", cat);
  metadata::expect_object(nodes, cat / "metadata");

  ConsolidatedMetadata out;
  for (const auto& [key, doc] : nodes.items()) {
    if (!valid_relative_path(key))
      fail(ErrorKind::invalid_metadata, cat / "metadata" / key, "not a relative node path");
    const std::string node = join(path, key);
    try {
      out.nodes.emplace(key, std::visit([](auto&& m) -> TreeNode { return std::move(m); },
                                        metadata::parse_zarr_json(doc, FieldPath{node, ""})));
    } catch (const Error& e) {
      if (!metadata::makes_node_unreadable(e)) throw;
      out.nodes.emplace(key, UnreadableNode{3, metadata::declared_node_type(doc), {{"zarr.json", doc}}, e});
    }
  }
  return out;
}

ConsolidatedMetadata parse_zmetadata(const json& doc, std::string_view path) {
  const FieldPath at{path, ".zmetadata"};
  metadata::expect_object(doc, at);
  const FieldPath fat = at / "zarr_consolidated_format";
  const std::int64_t format = metadata::as_int(metadata::require(doc, "zarr_consolidated_format", at), fat);
  if (format != 1) fail(ErrorKind::unsupported, fat, "expected 1, got " + std::to_string(format));
  const FieldPath mat = at / "metadata";
  const json& entries = metadata::require(doc, "metadata", at);
  metadata::expect_object(entries, mat);

  // Keys are "<node>/.zarray", "<node>/.zgroup", "<node>/.zattrs"; the bare
  // ".zgroup"/".zattrs" describe the group itself, which is not one of its nodes.
  static const std::string kSuffixes[] = {".zarray", ".zgroup", ".zattrs"};
  std::set<std::string> node_paths;
  for (const auto& [key, value] : entries.items()) {
    bool known = false;
    for (const auto& s : kSuffixes) {
      if (key == s) { known = true; break; }
      if (key.size() > s.size() + 1 && key.ends_with("/" + s)) {
        std::string node = key.substr(0, key.size() - s.size() - 1);
        if (!valid_relative_path(node)) fail(ErrorKind::invalid_metadata, mat / key, "not a relative node path");
        node_paths.insert(std::move(node));
        known = true;
        break;
      }
    }
    if (!known) fail(ErrorKind::invalid_metadata, mat / key, "not a .zarray, .zgroup or .zattrs key");
  }

  ConsolidatedMetadata out;
  for (const auto& node : node_paths) {
    const json* zarray = metadata::find(entries, node + "/.zarray");
    const json* zgroup = metadata::find(entries, node + "/.zgroup");
    const json* zattrs = metadata::find(entries, node + "/.zattrs");
    const json no_attrs = nullptr;
    const std::string node_path = join(path, node);
    try {
      if (zarray != nullptr && zgroup != nullptr)
        fail(ErrorKind::invalid_metadata, mat / (node + "/.zgroup"), "node is both an array and a group");
      if (zarray != nullptr) {
        out.nodes.emplace(node, parse_zarray(*zarray, zattrs ? *zattrs : no_attrs, node_path));
      } else if (zgroup != nullptr) {
        out.nodes.emplace(node, parse_zgroup(*zgroup, zattrs ? *zattrs : no_attrs, node_path));
      } else {
        fail(ErrorKind::invalid_metadata, mat / (node + "/.zattrs"), "attributes of a node with no .zarray or .zgroup");
      }
    } catch (const Error& e) {
      if (!metadata::makes_node_unreadable(e)) throw;
      json documents = json::object();
      if (zarray != nullptr) documents[".zarray"] = *zarray;
      if (zgroup != nullptr) documents[".zgroup"] = *zgroup;
      if (zattrs != nullptr) documents[".zattrs"] = *zattrs;
      const char* type = zarray != nullptr && zgroup == nullptr ? "array" : zgroup != nullptr && zarray == nullptr ? "group" : "";
      out.nodes.emplace(node, UnreadableNode{2, type, std::move(documents), e});
    }
  }
  return out;
}

}  // namespace zarrgpu

namespace zarrgpu {

json to_zarr_json(const GroupMetadata& m, const ConsolidatedMetadata& c) {
  json nodes = json::object();
  for (const auto& [path, node] : c.nodes) {
    if (const auto* a = std::get_if<ArrayMetadata>(&node)) {
      nodes[path] = to_zarr_json(*a);
    } else if (const auto* g = std::get_if<GroupMetadata>(&node)) {
      nodes[path] = to_zarr_json(*g);
    } else if (const json* doc = metadata::find(std::get<UnreadableNode>(node).documents, "zarr.json")) {
      nodes[path] = *doc;
    }
  }
  json doc = to_zarr_json(m);
  doc["consolidated_metadata"] = {{"kind", "inline"}, {"must_understand", false}, {"metadata", std::move(nodes)}};
  return doc;
}

json to_zmetadata(const GroupMetadata& root, const ConsolidatedMetadata& c) {
  // zarr-python 2 writes .zattrs only for nodes that have attributes.
  json entries = {{".zgroup", to_zgroup(root)}};
  if (!root.attributes.empty()) entries[".zattrs"] = root.attributes;
  for (const auto& [path, node] : c.nodes) {
    if (const auto* a = std::get_if<ArrayMetadata>(&node)) {
      entries[path + "/.zarray"] = to_zarray(*a);
      if (json attrs = to_zattrs(*a); !attrs.empty()) entries[path + "/.zattrs"] = std::move(attrs);
    } else if (const auto* g = std::get_if<GroupMetadata>(&node)) {
      entries[path + "/.zgroup"] = to_zgroup(*g);
      if (!g->attributes.empty()) entries[path + "/.zattrs"] = g->attributes;
    } else {
      for (const auto& [name, doc] : std::get<UnreadableNode>(node).documents.items())
        if (name != "zarr.json") entries[path + "/" + name] = doc;
    }
  }
  return {{"metadata", std::move(entries)}, {"zarr_consolidated_format", 1}};
}

}  // namespace zarrgpu
