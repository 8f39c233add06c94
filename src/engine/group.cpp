// zarrgpu::Group and open_node: finding nodes in a store. Format 3 zarr.json
// first, then format 2 .zarray/.zgroup (+ .zattrs). Consolidated metadata
// (v3 inline `consolidated_metadata`, v2 `.zmetadata`) answers members(),
// tree() and open_array() without further reads.
#include <set>

#include "engine/node_documents.hpp"
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

}  // namespace

NodeMetadata open_node(Store& store, const std::string& path_in) {
  const std::string path = engine::normalize_node_path(path_in);
  return node_from_documents(read_node_documents(store, path), path, store);
}

Group Group::open(std::shared_ptr<Store> store, std::string path, std::optional<bool> consolidated) {
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
  if (consolidated == false) return g;  // the members' own metadata, as asked
  try {
    if (docs.zarr_json) {
      g.consolidated_ = parse_consolidated_v3(*docs.zarr_json, path);
    } else if (auto zmeta = g.store_->get(engine::join_key(path, ".zmetadata"))) {
      g.consolidated_ = parse_zmetadata(parse_json(*zmeta, engine::join_key(path, ".zmetadata"), path, *g.store_), path);
    }
  } catch (const Error& e) {
    throw e.with_context(ctx);
  }
  if (consolidated == true && !g.consolidated_) {
    // zarr-python raises ValueError here: an option the store cannot satisfy.
    throw Error(ErrorKind::invalid_argument,
                "consolidated metadata was required, but the group '" + path + "' has none (no " +
                    (docs.zarr_json ? "consolidated_metadata in zarr.json" : ".zmetadata") + ")",
                ctx);
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
  const NodeMetadata node = metadata;
  engine::write_node_documents(*store, path, node);
  if (!path.empty()) engine::update_consolidated(*store, path, &node, overwrite);
  Group g;
  g.store_ = std::move(store);
  g.path_ = path;
  g.metadata_ = std::move(metadata);
  return g;
}

namespace {

// The direct children of `path` that are nodes: one listing of the group's
// directory, then a check for a metadata document in each subdirectory (the
// chunks below are never listed).
std::vector<std::string> child_nodes(Store& store, const std::string& path) {
  std::vector<std::string> out;
  for (const auto& name : store.list_dir(path)) {
    if (!name.ends_with('/')) continue;
    const std::string child = name.substr(0, name.size() - 1);
    const std::string child_path = engine::join_key(path, child);
    for (const char* doc : {"zarr.json", ".zarray", ".zgroup"}) {
      if (store.exists(engine::join_key(child_path, doc))) {
        out.push_back(child);
        break;
      }
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> Group::members() const {
  if (consolidated_) {
    std::set<std::string> names;
    for (const auto& [rel, node] : consolidated_->nodes) {
      if (rel.find('/') == std::string::npos) names.insert(rel);
    }
    return {names.begin(), names.end()};
  }
  return child_nodes(*store_, path_);
}

std::map<std::string, NodeMetadata> Group::tree() const {
  if (consolidated_) return consolidated_->nodes;
  std::map<std::string, NodeMetadata> out;
  // Down through the groups only: an array's directory holds chunks, not nodes.
  std::vector<std::string> pending{""};
  while (!pending.empty()) {
    const std::string rel_group = std::move(pending.back());
    pending.pop_back();
    for (const auto& child : child_nodes(*store_, engine::join_key(path_, rel_group))) {
      const std::string rel = engine::join_key(rel_group, child);
      NodeMetadata node = open_node(*store_, engine::join_key(path_, rel));
      if (std::holds_alternative<GroupMetadata>(node)) pending.push_back(rel);
      out.emplace(rel, std::move(node));
    }
  }
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

void Group::set_attributes(json attributes) {
  const ErrorContext ctx{path_, "", "", store_->describe()};
  if (!attributes.is_object()) throw Error(ErrorKind::invalid_argument, "attributes must be a JSON object", ctx);
  GroupMetadata m = metadata_;
  m.attributes = std::move(attributes);
  const NodeMetadata node = m;
  try {
    engine::write_node_documents(*store_, path_, node);
    engine::update_consolidated(*store_, path_, &node);
  } catch (const Error& e) {
    throw e.with_context(ctx);
  }
  metadata_ = std::get<GroupMetadata>(node);
}

void consolidate_metadata(std::shared_ptr<Store> store, const std::string& path) {
  if (!store) throw Error(ErrorKind::invalid_argument, "no store", {path, "", "", ""});
  engine::write_consolidated(std::move(store), path);
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
