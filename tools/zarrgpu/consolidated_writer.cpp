#include "consolidated_writer.hpp"

namespace zarrgpu::cli {

json consolidated_document(const GroupMetadata& root, const std::vector<std::pair<std::string, NodeMetadata>>& nodes) {
  ConsolidatedMetadata c;
  for (const auto& entry : nodes)  // not a structured binding: clang 14 cannot capture one
    std::visit([&c, &path = entry.first](const auto& m) { c.nodes.emplace(path, m); }, entry.second);
  return root.zarr_format == 2 ? to_zmetadata(root, c) : to_zarr_json(root, c);
}

void write_consolidated(Store& store, const GroupMetadata& root,
                        const std::vector<std::pair<std::string, NodeMetadata>>& nodes) {
  std::string text = dump_metadata_document(consolidated_document(root, nodes));
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(text.data()), text.size());
  store.write(root.zarr_format == 2 ? ".zmetadata" : "zarr.json", bytes);
}

}  // namespace zarrgpu::cli
