// zarrgpu::Group and open_node: finding nodes in a store. Format 3 zarr.json
// first, then format 2 .zarray/.zgroup (+ .zattrs). Consolidated metadata
// (v3 inline `consolidated_metadata`, v2 `.zmetadata`) answers members(),
// tree() and open_array() without further reads.
#include <set>

#include "engine/node_documents.hpp"
#include "metadata/node_metadata.hpp"
#include "engine/node_path.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {

namespace {

// The node's metadata documents, read in one batch. A document that is found
// but does not parse is kept as the error it gives, so that a listing can name
// the node as unreadable.
struct NodeDocuments {
  std::optional<json> zarr_json, zarray, zgroup, zattrs;
  std::optional<Error> unparsable;  // the first found document that did not parse
  bool has_zarr_json = false, has_zarray = false, has_zgroup = false;
};

json parse_document(const Bytes& bytes, const std::string& key, const std::string& path, const Store& store) {
  return parse_metadata_document(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                 {path, "", "", store.describe(), key});
}

NodeDocuments read_node_documents(Store& store, const std::string& path) {
  static constexpr const char* names[] = {"zarr.json", ".zarray", ".zgroup", ".zattrs"};
  NodeDocuments d;
  std::vector<ReadInto> reqs;
  bool* has[] = {&d.has_zarr_json, &d.has_zarray, &d.has_zgroup, nullptr};
  for (std::size_t i = 0; i < std::size(names); ++i) {
    const std::string key = engine::join_key(path, names[i]);
    try {
      engine::check_metadata_document_size(store, key, path);
    } catch (const Error& e) {  // found, and too large to read
      if (e.kind() != ErrorKind::invalid_metadata) throw;  // the store failed (a remote store's 403)
      if (!d.unparsable) d.unparsable = e;
      if (has[i]) *has[i] = true;
      reqs.push_back({{"", ByteRange::all()}, {}});  // an empty key: left out of the batch
      continue;
    }
    reqs.push_back({{key, ByteRange::all()}, {}});
  }
  std::vector<ReadInto> batch;
  for (const auto& r : reqs)
    if (!r.request.key.empty()) batch.push_back(r);
  std::vector<ReadResult> got;
  try {
    got = store.read(batch);
  } catch (const Error& e) {
    throw e.with_context({path, "", "", store.describe()});
  }
  std::vector<ReadResult> res(reqs.size());
  for (std::size_t i = 0, j = 0; i < reqs.size(); ++i)
    if (!reqs[i].request.key.empty()) res[i] = std::move(got[j++]);
  for (std::size_t i = 0; i < 3; ++i)
    if (res[i].found) *has[i] = true;
  std::optional<json>* slots[] = {&d.zarr_json, &d.zarray, &d.zgroup, &d.zattrs};
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (!res[i].found) continue;
    try {
      *slots[i] = parse_document(res[i].data, reqs[i].request.key, path, store);
    } catch (const Error& e) {
      if (!d.unparsable) d.unparsable = e;
    }
  }
  return d;
}

NodeMetadata node_from_documents(const NodeDocuments& d, const std::string& path, const Store& store) {
  const ErrorContext ctx{path, "", "", store.describe()};
  // zarr.json decides alone (format 3 first); a broken .zattrs beside it does not matter.
  const bool v3 = d.has_zarr_json;
  if (d.unparsable && (!v3 || d.unparsable->context().document == engine::join_key(path, "zarr.json")))
    throw *d.unparsable;
  try {
    if (d.zarr_json) return parse_zarr_json(*d.zarr_json, path);
    const json attrs = d.zattrs ? *d.zattrs : json::object();
    if (d.zarray) return parse_zarray(*d.zarray, attrs, path);
    if (d.zgroup) return parse_zgroup(*d.zgroup, attrs, path);
  } catch (const Error& e) {
    const char* name = d.zarr_json ? "zarr.json" : d.zarray ? ".zarray" : ".zgroup";
    throw e.with_context({path, "", "", store.describe(), engine::join_key(path, name)});
  }
  throw Error(ErrorKind::not_found,
              "no Zarr array or group at '" + path + "' in " + store.describe() +
                  " (no zarr.json, .zarray or .zgroup)",
              ctx);
}

// The node as a listing shows it: unreadable (with the documents that parsed)
// where opening it would throw for the node's own sake.
TreeNode tree_node(const std::shared_ptr<Store>& store, const std::string& path) {
  const NodeDocuments d = read_node_documents(*store, path);
  try {
    NodeMetadata node = node_from_documents(d, path, *store);
    if (auto* a = std::get_if<ArrayMetadata>(&node)) {
      Array(store, path, *a);  // builds the codec chain: an unknown codec shows here
      return std::move(*a);
    }
    return std::get<GroupMetadata>(std::move(node));
  } catch (const Error& e) {
    if (!metadata::makes_node_unreadable(e)) throw;
    UnreadableNode u{d.has_zarr_json ? 3 : 2, "", json::object(), e};
    if (d.zarr_json) u.node_type = metadata::declared_node_type(*d.zarr_json);
    else if (!d.has_zarr_json && d.has_zarray != d.has_zgroup) u.node_type = d.has_zarray ? "array" : "group";
    if (d.zarr_json) u.documents["zarr.json"] = *d.zarr_json;
    if (!d.has_zarr_json) {
      if (d.zarray) u.documents[".zarray"] = *d.zarray;
      if (d.zgroup) u.documents[".zgroup"] = *d.zgroup;
      if (d.zattrs) u.documents[".zattrs"] = *d.zattrs;
    }
    return u;
  }
}

// A consolidated array whose codec chain cannot be built is listed as unreadable too.
TreeNode usable(TreeNode node, const std::shared_ptr<Store>& store, const std::string& path,
                const std::string& document) {
  const ErrorContext ctx{path, "", "", store->describe(), document};
  if (auto* u = std::get_if<UnreadableNode>(&node)) {
    u->error = u->error.with_context(ctx);
    return node;
  }
  const auto* a = std::get_if<ArrayMetadata>(&node);
  if (a == nullptr) return node;
  try {
    Array(store, path, *a);
    return node;
  } catch (const Error& e) {
    if (!metadata::makes_node_unreadable(e)) throw;
    json documents;
    if (a->zarr_format == 3) {
      documents["zarr.json"] = to_zarr_json(*a);
    } else {
      documents[".zarray"] = to_zarray(*a);
      if (!a->attributes.empty()) documents[".zattrs"] = a->attributes;
    }
    return UnreadableNode{a->zarr_format, "array", std::move(documents), e.with_context(ctx)};
  }
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
  g.metadata_ = std::make_shared<const GroupMetadata>(std::get<GroupMetadata>(std::move(node)));
  if (consolidated == false) return g;  // the members' own metadata, as asked
  try {
    std::string document;
    std::optional<ConsolidatedMetadata> found;
    if (docs.zarr_json) {
      found = parse_consolidated_v3(*docs.zarr_json, path);
      document = engine::join_key(path, "zarr.json");
    } else {
      document = engine::join_key(path, ".zmetadata");
      if (auto zmeta = engine::read_metadata_document(*g.store_, document, path))
        found = parse_zmetadata(parse_document(*zmeta, document, path, *g.store_), path);
    }
    if (found) {
      for (auto& [rel, node] : found->nodes)
        node = usable(std::move(node), g.store_, engine::join_key(path, rel), document);
      g.consolidated_ = std::make_shared<const ConsolidatedMetadata>(std::move(*found));
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

Group Group::create(std::shared_ptr<Store> store, std::string path, int zarr_format, bool overwrite) {
  if (zarr_format != 2 && zarr_format != 3)
    throw Error(ErrorKind::invalid_argument, "zarr_format must be 2 or 3, not " + std::to_string(zarr_format),
                {path, "", "", ""});
  return create(std::move(store), std::move(path), GroupMetadata{zarr_format, json::object()}, overwrite);
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
  g.metadata_ = std::make_shared<const GroupMetadata>(std::move(metadata));
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

std::map<std::string, TreeNode> Group::tree() const {
  if (consolidated_) return consolidated_->nodes;
  std::map<std::string, TreeNode> out;
  // Down through the groups only: an array's directory holds chunks, not nodes.
  std::vector<std::string> pending{""};
  while (!pending.empty()) {
    const std::string rel_group = std::move(pending.back());
    pending.pop_back();
    for (const auto& child : child_nodes(*store_, engine::join_key(path_, rel_group))) {
      const std::string rel = engine::join_key(rel_group, child);
      TreeNode node = tree_node(store_, engine::join_key(path_, rel));
      if (std::holds_alternative<GroupMetadata>(node)) pending.push_back(rel);
      out.emplace(rel, std::move(node));
    }
  }
  return out;
}

TreeNode Group::member(const std::string& relative_path) const {
  const std::string rel = engine::normalize_node_path(relative_path);
  if (consolidated_) {
    if (auto it = consolidated_->nodes.find(rel); it != consolidated_->nodes.end()) return it->second;
  }
  return tree_node(store_, engine::join_key(path_, rel));
}

Array Group::open_array(const std::string& relative_path) const {
  const std::string rel = engine::normalize_node_path(relative_path);
  if (consolidated_) {
    if (auto it = consolidated_->nodes.find(rel); it != consolidated_->nodes.end()) {
      if (const auto* u = std::get_if<UnreadableNode>(&it->second)) throw u->error;
      if (const auto* a = std::get_if<ArrayMetadata>(&it->second)) return Array(store_, engine::join_key(path_, rel), *a);
    }
  }
  return Array::open(store_, engine::join_key(path_, rel));
}

int Group::zarr_format() const noexcept { return metadata_->zarr_format; }

std::string Group::attributes_json() const { return dump_metadata_document(metadata_->attributes, -1); }

void Group::set_attributes(std::string_view attributes_json) {
  const ErrorContext ctx{path_, "", "", store_->describe()};
  // Refused as a metadata document would be (invalid_metadata): the text becomes one.
  json attributes = parse_metadata_document(attributes_json, ctx);
  if (!attributes.is_object()) throw Error(ErrorKind::invalid_argument, "attributes must be a JSON object", ctx);
  GroupMetadata m = *metadata_;
  m.attributes = std::move(attributes);
  const NodeMetadata node = m;
  try {
    engine::write_node_documents(*store_, path_, node);
    engine::update_consolidated(*store_, path_, &node);
  } catch (const Error& e) {
    throw e.with_context(ctx);
  }
  metadata_ = std::make_shared<const GroupMetadata>(std::get<GroupMetadata>(node));
}

void consolidate_metadata(std::shared_ptr<Store> store, const std::string& path) {
  if (!store) throw Error(ErrorKind::invalid_argument, "no store", {path, "", "", ""});
  engine::write_consolidated(std::move(store), path);
}

Group Group::open_group(const std::string& relative_path) const {
  const std::string rel = engine::normalize_node_path(relative_path);
  if (consolidated_ && !rel.empty()) {
    if (auto it = consolidated_->nodes.find(rel); it != consolidated_->nodes.end()) {
      if (const auto* u = std::get_if<UnreadableNode>(&it->second)) throw u->error;
    }
    if (auto it = consolidated_->nodes.find(rel);
        it != consolidated_->nodes.end() && std::holds_alternative<GroupMetadata>(it->second)) {
      // The sub-tree of the consolidated metadata, re-rooted at the child.
      Group g;
      g.store_ = store_;
      g.path_ = engine::join_key(path_, rel);
      g.metadata_ = std::make_shared<const GroupMetadata>(std::get<GroupMetadata>(it->second));
      auto sub = std::make_shared<ConsolidatedMetadata>();
      const std::string prefix = rel + "/";
      for (const auto& [k, v] : consolidated_->nodes) {
        if (k.starts_with(prefix)) sub->nodes.emplace(k.substr(prefix.size()), v);
      }
      g.consolidated_ = std::move(sub);
      return g;
    }
  }
  if (rel.empty()) return *this;
  return Group::open(store_, engine::join_key(path_, rel));
}

}  // namespace zarrgpu
