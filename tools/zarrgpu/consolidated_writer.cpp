#include "consolidated_writer.hpp"

namespace zarrgpu::cli {

namespace {
json v2_attrs(const json& a) { return a.is_object() ? a : json::object(); }
}  // namespace

json consolidated_document(const GroupMetadata& root, const std::vector<std::pair<std::string, NodeMetadata>>& nodes) {
  if (root.zarr_format == 2) {
    json md = json::object();
    md[".zgroup"] = to_zgroup(root);
    md[".zattrs"] = v2_attrs(root.attributes);
    for (const auto& [path, node] : nodes) {
      if (const auto* a = std::get_if<ArrayMetadata>(&node)) {
        md[path + "/.zarray"] = to_zarray(*a);
        md[path + "/.zattrs"] = v2_attrs(a->attributes);
      } else {
        const auto& g = std::get<GroupMetadata>(node);
        md[path + "/.zgroup"] = to_zgroup(g);
        md[path + "/.zattrs"] = v2_attrs(g.attributes);
      }
    }
    return json{{"metadata", md}, {"zarr_consolidated_format", 1}};
  }
  json doc = to_zarr_json(root);
  json md = json::object();
  for (const auto& [path, node] : nodes)
    md[path] = std::visit([](const auto& m) { return to_zarr_json(m); }, node);
  doc["consolidated_metadata"] = json{{"kind", "inline"}, {"must_understand", false}, {"metadata", md}};
  return doc;
}

void write_consolidated(Store& store, const GroupMetadata& root,
                        const std::vector<std::pair<std::string, NodeMetadata>>& nodes) {
  std::string text = consolidated_document(root, nodes).dump(2);
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(text.data()), text.size());
  store.write(root.zarr_format == 2 ? ".zmetadata" : "zarr.json", bytes);
}

}  // namespace zarrgpu::cli
