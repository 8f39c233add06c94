#include "engine/node_documents.hpp"

#include <vector>

#include "engine/node_path.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine {

namespace {

void put(Store& store, const std::string& key, const json& doc) {
  const std::string text = dump_metadata_document(doc);
  store.write(key, std::as_bytes(std::span(text.data(), text.size())));
}

std::optional<json> get_json(Store& store, const std::string& key, const std::string& path) {
  auto bytes = read_metadata_document(store, key, path);
  if (!bytes) return std::nullopt;
  return parse_metadata_document(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
                                 {path, "", "", store.describe(), key});
}

// `path` relative to the group `group` ("" when they are the same node).
std::string relative_to(const std::string& path, const std::string& group) {
  if (group.empty()) return path;
  if (path == group) return "";
  return path.substr(group.size() + 1);
}

// The groups that may hold an entry for `path`: the root, each group on the
// way down, and `path` itself.
std::vector<std::string> self_and_ancestors(const std::string& path) {
  std::vector<std::string> out{""};
  for (std::size_t p = path.find('/'); p != std::string::npos; p = path.find('/', p + 1)) out.push_back(path.substr(0, p));
  if (!path.empty()) out.push_back(path);
  return out;
}

// One v3 inline consolidated_metadata.metadata object, entry `rel`.
void set_v3_entry(json& entries, const std::string& rel, const NodeMetadata* node, bool drop_below) {
  if (drop_below || node == nullptr) {
    const std::string prefix = rel + "/";
    for (auto it = entries.begin(); it != entries.end();) {
      if (it.key().starts_with(prefix)) it = entries.erase(it);
      else ++it;
    }
  }
  if (node == nullptr) {
    entries.erase(rel);
    return;
  }
  entries[rel] = std::visit([](const auto& n) { return to_zarr_json(n); }, *node);
}

// One .zmetadata "metadata" object: the keys "rel/.zarray", "rel/.zgroup",
// "rel/.zattrs" (the bare names for the group itself, rel == "").
void set_v2_entries(json& entries, const std::string& rel, const NodeMetadata* node, bool drop_below) {
  const std::string base = rel.empty() ? "" : rel + "/";
  for (const char* name : {".zarray", ".zgroup", ".zattrs"}) entries.erase(base + name);
  if (drop_below || node == nullptr) {
    for (auto it = entries.begin(); it != entries.end();) {
      if (!base.empty() && it.key().starts_with(base)) it = entries.erase(it);
      else ++it;
    }
  }
  if (node == nullptr) return;
  if (const auto* a = std::get_if<ArrayMetadata>(node)) {
    entries[base + ".zarray"] = to_zarray(*a);
    if (json attrs = to_zattrs(*a); !attrs.empty()) entries[base + ".zattrs"] = std::move(attrs);
  } else {
    const auto& g = std::get<GroupMetadata>(*node);
    entries[base + ".zgroup"] = to_zgroup(g);
    if (!g.attributes.empty()) entries[base + ".zattrs"] = g.attributes;
  }
}

}  // namespace

void check_metadata_document_size(Store& store, const std::string& key, const std::string& path) {
  const auto n = store.size(key);
  if (n && *n > max_metadata_document_bytes)
    throw Error(ErrorKind::invalid_metadata,
                "'" + key + "' is " + std::to_string(*n) + " bytes, more than the " +
                    std::to_string(max_metadata_document_bytes) + " a metadata document may have",
                {path, "", "", store.describe(), key});
}

std::optional<Bytes> read_metadata_document(Store& store, const std::string& key, const std::string& path) {
  check_metadata_document_size(store, key, path);
  return store.get(key);
}

void write_node_documents(Store& store, const std::string& path, const NodeMetadata& node) {
  if (const auto* a = std::get_if<ArrayMetadata>(&node)) {
    if (a->zarr_format == 3) return put(store, join_key(path, "zarr.json"), to_zarr_json(*a));
    put(store, join_key(path, ".zarray"), to_zarray(*a));
    const json attrs = to_zattrs(*a);
    if (!attrs.empty()) put(store, join_key(path, ".zattrs"), attrs);
    else store.erase(join_key(path, ".zattrs"));
    return;
  }
  const auto& g = std::get<GroupMetadata>(node);
  if (g.zarr_format == 3) {
    json doc = to_zarr_json(g);
    if (auto old = get_json(store, join_key(path, "zarr.json"), path)) {
      if (old->is_object() && old->contains("consolidated_metadata"))
        doc["consolidated_metadata"] = (*old)["consolidated_metadata"];
    }
    return put(store, join_key(path, "zarr.json"), doc);
  }
  put(store, join_key(path, ".zgroup"), to_zgroup(g));
  if (!g.attributes.empty()) put(store, join_key(path, ".zattrs"), g.attributes);
  else store.erase(join_key(path, ".zattrs"));
}

void update_consolidated(Store& store, const std::string& path, const NodeMetadata* node, bool drop_below) {
  for (const std::string& group : self_and_ancestors(path)) {
    const std::string rel = relative_to(path, group);
    if (auto doc = get_json(store, join_key(group, "zarr.json"), group)) {
      if (rel.empty()) continue;  // a format 3 group's own metadata is not in its consolidated entries
      if (!doc->is_object() || doc->value("node_type", "") != "group") continue;
      auto cm = doc->find("consolidated_metadata");
      if (cm == doc->end() || !cm->is_object()) continue;
      auto entries = cm->find("metadata");
      if (entries == cm->end() || !entries->is_object()) continue;
      set_v3_entry(*entries, rel, node, drop_below);
      put(store, join_key(group, "zarr.json"), *doc);
      continue;
    }
    const std::string key = join_key(group, ".zmetadata");
    auto doc = get_json(store, key, group);
    if (!doc || !doc->is_object()) continue;
    auto entries = doc->find("metadata");
    if (entries == doc->end() || !entries->is_object()) continue;
    set_v2_entries(*entries, rel, node, drop_below);
    put(store, key, *doc);
  }
}

void write_consolidated(std::shared_ptr<Store> store, const std::string& path_in) {
  const std::string path = normalize_node_path(path_in);
  Group g = Group::open(store, path, /*consolidated=*/false);
  ConsolidatedMetadata c;
  c.nodes = g.tree();
  if (g.metadata().zarr_format == 2) return put(*store, join_key(path, ".zmetadata"), to_zmetadata(g.metadata(), c));
  put(*store, join_key(path, "zarr.json"), to_zarr_json(g.metadata(), c));
}

}  // namespace zarrgpu::engine
