// zarrgpu info STORE[/PATH] [--json]: the tree of groups and arrays, with each
// array's layout, codecs and sizes.
#include <cstdio>
#include <iostream>
#include <sstream>

#include "byte_size.hpp"
#include "cli_args.hpp"
#include "codec_summary.hpp"
#include "commands.hpp"
#include "node_tree.hpp"

namespace zarrgpu::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"json", false, "", "print a JSON document instead of text (stable keys)"},
    {"no-consolidated", false, "", "read every member's own metadata, not the consolidated metadata"},
    {"path", true, "PATH", "the node inside STORE (disables the search for the store root)"},
    {"array", true, "PATH", "same as --path"},
    {"help", false, "", "show this help"},
};

const char* kUsage =
    "usage: zarrgpu info STORE[/PATH] [--json]\n"
    "\n"
    "Shows the groups and arrays under STORE[/PATH]: per array its shape, data type,\n"
    "chunks (and inner chunks when sharded), codecs, dimension names, fill value,\n"
    "stored size (the sum of the sizes of its keys), uncompressed size and ratio.\n"
    "A PATH inside a store (data.zarr/air) is found by walking up to the store root.\n"
    "A node below that zarrgpu cannot open (unsupported data type or codec, broken\n"
    "metadata) is listed as unreadable, with the reason; the rest is shown as usual.\n"
    "\noptions:\n";

struct ArraySizes {
  std::uint64_t stored = 0, keys = 0, uncompressed = 0;
  bool listed = true;  // false: the store cannot list (HTTP), stored sizes unknown
};

ArraySizes sizes_of(Store& store, const std::string& path, const ArrayMetadata& m) {
  ArraySizes s;
  s.uncompressed = m.num_elements() * size_of(m.data_type);
  std::string prefix = path.empty() ? "" : path + "/";
  std::vector<std::string> keys;
  try {
    keys = store.list(prefix);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::unsupported) throw;
    s.listed = false;
  }
  for (const auto& key : keys) {
    if (!prefix.empty() && key.rfind(prefix, 0) != 0) continue;
    // A root array owns every key; a nested group's arrays own theirs (no
    // other node lives under an array).
    if (auto n = store.size(key)) {
      s.stored += *n;
      ++s.keys;
    }
  }
  return s;
}

json shape_json(const std::vector<std::uint64_t>& v) { return json(v); }

std::string shape_text(const std::vector<std::uint64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

json fill_json(const ArrayMetadata& m) {
  try {
    if (m.fill_value.is_null) return nullptr;
    return fill_value_to_json(m.fill_value, m.data_type, m.zarr_format);
  } catch (const std::exception&) {
    return "?";
  }
}

json codecs_json(const std::vector<CodecSpec>& chain) {
  json a = json::array();
  for (const auto& c : chain) {
    json o{{"name", c.name}};
    if (!c.configuration.empty()) o["configuration"] = c.configuration;
    a.push_back(o);
  }
  return a;
}

json describe(const NodeTree& tree, const NodeEntry& e) {
  json j;
  j["path"] = e.path;
  j["zarr_format"] = e.zarr_format();
  if (const auto* u = std::get_if<UnreadableNode>(&e.metadata)) {
    // Listed with the reason; the rest of the tree is shown as usual.
    j["node_type"] = u->node_type.empty() ? json(nullptr) : json(u->node_type);
    j["unreadable"] = {{"kind", to_string(u->error.kind())}, {"cause", u->error.cause()},
                       {"message", u->error.what()}};
    return j;
  }
  if (!e.is_array()) {
    const auto& g = std::get<GroupMetadata>(e.metadata);
    j["node_type"] = "group";
    j["attributes"] = g.attributes;
    return j;
  }
  const auto& m = std::get<ArrayMetadata>(e.metadata);
  ArraySizes s = sizes_of(*tree.store, e.path, m);
  auto inner = inner_chunk_shape(m.codecs);
  auto names = dimension_names_of(m);
  j["node_type"] = "array";
  j["shape"] = shape_json(m.shape);
  j["data_type"] = describe(m.data_type);
  j["chunks"] = shape_json(m.chunk_shape);
  j["inner_chunks"] = inner.empty() ? json(nullptr) : shape_json(inner);
  j["codecs"] = summarize_codecs(m.codecs);
  j["codec_specs"] = codecs_json(m.codecs);
  j["dimension_names"] = names.empty() ? json(nullptr) : json(names);
  j["fill_value"] = fill_json(m);
  j["attributes"] = m.attributes;
  j["stored_bytes"] = s.listed ? json(s.stored) : json(nullptr);
  j["stored_keys"] = s.listed ? json(s.keys) : json(nullptr);
  // Variable-length elements (strings, bytes) have no size until read: null.
  const bool sized = !is_variable_length(m.data_type);
  j["uncompressed_bytes"] = sized ? json(s.uncompressed) : json(nullptr);
  j["ratio"] = sized && s.listed && s.stored ? json(static_cast<double>(s.uncompressed) / static_cast<double>(s.stored))
                                 : json(nullptr);
  return j;
}

void print_text(const NodeTree& tree, const json& nodes) {
  std::ostringstream o;
  o << tree.location.root << (tree.location.path.empty() ? "" : " : " + tree.location.path);
  if (tree.consolidated) o << "  (consolidated metadata)";
  o << "\n";
  for (const auto& n : nodes) {
    std::string path = n["path"].get<std::string>();
    int depth = node_depth(path, tree.location.path);
    std::string indent(static_cast<std::size_t>(2 * depth), ' ');
    std::string rel = relative_node_path(path, tree.location.path);
    const std::string& shown = rel.empty() ? path : rel;
    std::string name = shown.empty() ? "/" : shown.substr(shown.rfind('/') == std::string::npos ? 0 : shown.rfind('/') + 1);
    if (n.contains("unreadable")) {
      const std::string type = n["node_type"].is_string() ? n["node_type"].get<std::string>() + " " : "node ";
      o << indent << name << "  unreadable " << type << "(zarr v" << n["zarr_format"].get<int>()
        << "): " << n["unreadable"]["kind"].get<std::string>() << ": " << n["unreadable"]["cause"].get<std::string>()
        << "\n";
      continue;
    }
    if (n["node_type"] == "group") {
      o << indent << name << "  group (zarr v" << n["zarr_format"].get<int>() << ")";
      if (!n["attributes"].empty()) o << "  attributes: " << dump_metadata_document(n["attributes"], -1);
      o << "\n";
      continue;
    }
    auto shape = n["shape"].get<std::vector<std::uint64_t>>();
    o << indent << name << "  array (zarr v" << n["zarr_format"].get<int>() << ")  "
      << n["data_type"].get<std::string>() << " " << shape_text(shape) << "\n";
    std::string in = indent + "    ";
    auto field = [&](const char* label, const std::string& value) {
      std::string l = label;
      l.resize(14, ' ');
      o << in << l << value << "\n";
    };
    if (!n["dimension_names"].is_null()) {
      std::string d;
      for (const auto& x : n["dimension_names"]) d += (d.empty() ? "" : ", ") + x.get<std::string>();
      field("dimensions", d);
    }
    field("chunks", shape_text(n["chunks"].get<std::vector<std::uint64_t>>()));
    if (!n["inner_chunks"].is_null())
      field("inner chunks", shape_text(n["inner_chunks"].get<std::vector<std::uint64_t>>()));
    field("codecs", n["codecs"].get<std::string>());
    field("fill value", n["fill_value"].dump());
    if (n["stored_bytes"].is_null()) {
      field("stored", "unknown (the store cannot list its keys)");
    } else {
      auto stored = n["stored_bytes"].get<std::uint64_t>();
      field("stored", format_bytes(static_cast<double>(stored)) + " (" + std::to_string(stored) + " bytes, " +
                          std::to_string(n["stored_keys"].get<std::uint64_t>()) + " keys)");
    }
    if (n["uncompressed_bytes"].is_null()) {
      field("uncompressed", "variable-length elements");
    } else {
      auto raw = n["uncompressed_bytes"].get<std::uint64_t>();
      field("uncompressed", format_bytes(static_cast<double>(raw)) + " (" + std::to_string(raw) + " bytes)");
    }
    if (!n["ratio"].is_null()) {
      char r[32];
      std::snprintf(r, sizeof r, "%.2f", n["ratio"].get<double>());
      field("ratio", r);
    }
    if (!n["attributes"].empty()) field("attributes", dump_metadata_document(n["attributes"], -1));
  }
  std::cout << o.str();
}

}  // namespace

int run_info(const std::vector<std::string>& argv) {
  Args args = Args::parse(argv, kOptions);
  if (args.flag("help")) {
    std::cout << kUsage << format_options(kOptions);
    return 0;
  }
  if (args.positionals().size() != 1) throw UsageError("info needs exactly one STORE argument");
  auto path = args.value("path");
  if (!path) path = args.value("array");
  NodeTree tree = open_tree(locate_store(args.positionals()[0], path),
                            args.flag("no-consolidated") ? std::optional<bool>(false) : std::nullopt);
  json nodes = json::array();
  for (const auto& e : tree.nodes) nodes.push_back(describe(tree, e));
  if (args.flag("json")) {
    json doc{{"store", tree.location.root}, {"path", tree.location.path},
             {"consolidated", tree.consolidated}, {"nodes", nodes}};
    // As the documents are written: non-finite attribute values as NaN/Infinity.
    std::cout << dump_metadata_document(doc) << "\n";
  } else {
    print_text(tree, nodes);
  }
  return 0;
}

}  // namespace zarrgpu::cli
