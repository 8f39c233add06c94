// zarrgpu::Group and open_node: finding nodes in a store. Format 3 zarr.json
// first, then format 2 .zarray/.zgroup (+ .zattrs). Consolidated metadata
// (v3 inline `consolidated_metadata`, v2 `.zmetadata`) answers members(),
// tree() and open_array() without further reads.
#include <set>

#include "engine/node_path.hpp"
#include "zarrgpu/array.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {

namespace {

json parse_json(const Bytes& bytes, const std::string& key, const std::string& path, const Store& store) {
  try {
    return json::parse(reinterpret_cast<const char*>(bytes.data()),
                       reinterpret_cast<const char*>(bytes.data()) + bytes.size());
  } catch (const json::exception& e) {
    throw Error(ErrorKind::invalid_metadata, "'" + key + "' is not valid JSON: " + e.what(),
                {path, key, "", store.describe()});
  }
}

// The node's metadata documents, read in one batch.
struct NodeDocuments {
  std::optional<json> zarr_json, zarray, zgroup, zattrs;
};

NodeDocuments read_node_documents(Store& store, const std::string& path) {
  static constexpr const char* names[] = {"zarr.json", ".zarray", ".zgroup", ".zattrs"};
  std::vector<ReadInto> reqs;
  for (const char* n : names) reqs.push_back({{engine::join_key(path, n), ByteRange::all()}, {}});
  std::vector<ReadResult> res;
  try {
    res = store.read(reqs);
  } catch (const Error& e) {
    throw e.with_context({path, "", "", store.describe()});
  }
  NodeDocuments d;
  std::optional<json>* slots[] = {&d.zarr_json, &d.zarray, &d.zgroup, &d.zattrs};
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (res[i].found) *slots[i] = parse_json(res[i].data, reqs[i].request.key, path, store);
  }
  return d;
}

NodeMetadata node_from_documents(const NodeDocuments& d, const std::string& path, const Store& store) {
  const ErrorContext ctx{path, "", "", store.describe()};
  try {
    if (d.zarr_json) return parse_zarr_json(*d.zarr_json, path);
    const json attrs = d.zattrs ? *d.zattrs : json::object();
    if (d.zarray) return parse_zarray(*d.zarray, attrs, path);
    if (d.zgroup) return parse_zgroup(*d.zgroup, attrs, path);
  } catch (const Error& e) {
    throw e.with_context(ctx);
  }
  throw Error(ErrorKind::not_found,
              "no Zarr array or group at '" + path + "' in " + store.describe() +
                  " (no zarr.json, .zarray or .zgroup)",
              ctx);
}

bool is_metadata_name(std::string_view name) {
  return name == "zarr.json" || name == ".zarray" || name == ".zgroup";
}

}  // namespace

NodeMetadata open_node(Store& store, const std::string& path_in) {
  const std::string path = engine::normalize_node_path(path_in);
  return node_from_documents(read_node_documents(store, path), path, store);
}

Group Group::open(std::shared_ptr<Store> store, std::string path) {
  if (!store) throw Error(ErrorKind::invalid_argument, "no store", {path, "", "", ""});
  path = engine::normalize_node_path(path);
  const ErrorContext ctx{path, "", "", store->describe()};
  const NodeDocuments docs = read_node_documents(*store, path);
  NodeMetadata node = node_from_documents(docs, path, *store);
  if (!std::holds_alternative<GroupMetadata>(node)) {
    throw Error(ErrorKind::invalid_argument, "'" + path + "' is an array, not a group", ctx);
  }
  Group g;
  g.store_ = std::move(store);
  g.path_ = path;
  g.metadata_ = std::get<GroupMetadata>(std::move(node));
  try {
    if (docs.zarr_json) {
      g.consolidated_ = parse_consolidated_v3(*docs.zarr_json, path);
    } else if (auto zmeta = g.store_->get(engine::join_key(path, ".zmetadata"))) {
      g.consolidated_ = parse_zmetadata(parse_json(*zmeta, engine::join_key(path, ".zmetadata"), path, *g.store_), path);
    }
  } catch (const Error& e) {
    throw e.with_context(ctx);
  }
  return g;
}

Group Group::create(std::shared_ptr<Store> store, std::string path, GroupMetadata metadata, bool overwrite) {
  if (!store) throw Error(ErrorKind::invalid_argument, "no store", {path, "", "", ""});
  path = engine::normalize_node_path(path);
  const ErrorContext ctx{path, "", "", store->describe()};
  for (const char* name : {"zarr.json", ".zarray", ".zgroup"}) {
    if (store->exists(engine::join_key(path, name)) && !overwrite) {
      throw Error(ErrorKind::invalid_argument, "a node already exists at '" + path + "'", ctx);
    }
  }
  if (overwrite) {
    for (const auto& key : store->list(path)) store->erase(key);
  }
  auto put = [&](const char* name, const json& doc) {
    const std::string text = doc.dump(2);
    store->write(engine::join_key(path, name), std::as_bytes(std::span(text.data(), text.size())));
  };
  if (metadata.zarr_format == 2) {
    put(".zgroup", to_zgroup(metadata));
    if (!metadata.attributes.empty()) put(".zattrs", metadata.attributes);
  } else {
    put("zarr.json", to_zarr_json(metadata));
  }
  Group g;
  g.store_ = std::move(store);
  g.path_ = path;
  g.metadata_ = std::move(metadata);
  return g;
}

std::vector<std::string> Group::members() const {
  std::set<std::string> names;
  if (consolidated_) {
    for (const auto& [rel, node] : consolidated_->nodes) {
      if (rel.find('/') == std::string::npos) names.insert(rel);
    }
    return {names.begin(), names.end()};
  }
  const std::string prefix = path_.empty() ? "" : path_ + "/";
  for (const auto& key : store_->list(path_)) {
    const std::string_view rel = std::string_view(key).substr(prefix.size());
    const auto slash = rel.find('/');
    if (slash == std::string_view::npos) continue;
    // "name/zarr.json": a direct child node.
    if (is_metadata_name(rel.substr(slash + 1))) names.insert(std::string(rel.substr(0, slash)));
  }
  return {names.begin(), names.end()};
}

std::map<std::string, NodeMetadata> Group::tree() const {
  if (consolidated_) return consolidated_->nodes;
  std::map<std::string, NodeMetadata> out;
  const std::string prefix = path_.empty() ? "" : path_ + "/";
  std::set<std::string> nodes;
  for (const auto& key : store_->list(path_)) {
    const std::string_view rel = std::string_view(key).substr(prefix.size());
    const auto slash = rel.rfind('/');
    if (slash == std::string_view::npos) continue;  // this group's own metadata
    if (is_metadata_name(rel.substr(slash + 1))) nodes.insert(std::string(rel.substr(0, slash)));
  }
  for (const auto& rel : nodes) out.emplace(rel, open_node(*store_, engine::join_key(path_, rel)));
  return out;
}

Array Group::open_array(const std::string& relative_path) const {
  const std::string rel = engine::normalize_node_path(relative_path);
  if (consolidated_) {
    if (auto it = consolidated_->nodes.find(rel);
        it != consolidated_->nodes.end() && std::holds_alternative<ArrayMetadata>(it->second)) {
      return Array(store_, engine::join_key(path_, rel), std::get<ArrayMetadata>(it->second));
    }
  }
  return Array::open(store_, engine::join_key(path_, rel));
}

Group Group::open_group(const std::string& relative_path) const {
  const std::string rel = engine::normalize_node_path(relative_path);
  if (consolidated_ && !rel.empty()) {
    if (auto it = consolidated_->nodes.find(rel);
        it != consolidated_->nodes.end() && std::holds_alternative<GroupMetadata>(it->second)) {
      // The sub-tree of the consolidated metadata, re-rooted at the child.
      Group g;
      g.store_ = store_;
      g.path_ = engine::join_key(path_, rel);
      g.metadata_ = std::get<GroupMetadata>(it->second);
      ConsolidatedMetadata sub;
      const std::string prefix = rel + "/";
      for (const auto& [k, v] : consolidated_->nodes) {
        if (k.starts_with(prefix)) sub.nodes.emplace(k.substr(prefix.size()), v);
      }
      g.consolidated_ = std::move(sub);
      return g;
    }
  }
  if (rel.empty()) return *this;
  return Group::open(store_, engine::join_key(path_, rel));
}

}  // namespace zarrgpu
