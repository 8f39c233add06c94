// Group metadata (Zarr v3 core §"Group metadata"; Zarr v2 §"Groups") and the
// zarr.json entry point that dispatches on node_type.
#include "metadata/array_metadata_v3.hpp"
#include "metadata/node_metadata.hpp"

namespace zarrgpu {

namespace metadata {

json parse_zattrs(const json& zattrs, const FieldPath& at) {
  // An absent .zattrs reaches us as null.
  if (zattrs.is_null()) return json::object();
  expect_object(zattrs, at);
  return zattrs;
}

void expect_zarr_format(const json& doc, int expected, const FieldPath& at) {
  const FieldPath fat = at / "zarr_format";
  std::int64_t f = as_int(require(doc, "zarr_format", at), fat);
  if (f != expected)
    fail(ErrorKind::invalid_metadata, fat,
         "expected " + std::to_string(expected) + ", got " + std::to_string(f));
}

bool makes_node_unreadable(const Error& e) noexcept {
  return e.kind() == ErrorKind::invalid_metadata || e.kind() == ErrorKind::unsupported;
}

std::string declared_node_type(const json& zarr_json) {
  const json* t = find(zarr_json, "node_type");
  return t != nullptr && t->is_string() && (*t == "array" || *t == "group") ? t->get<std::string>() : "";
}

namespace {
GroupMetadata parse_group_v3(const json& doc, const FieldPath& at) {
  // consolidated_metadata (zarr-python) is read by parse_consolidated_v3;
  // zarr-python may write it as null.
  check_extension_members(doc, {"zarr_format", "node_type", "attributes", "consolidated_metadata"}, at);
  if (const json* c = find(doc, "consolidated_metadata"); c != nullptr && !c->is_null())
    expect_object(*c, at / "consolidated_metadata");
  GroupMetadata g;
  g.zarr_format = 3;
  if (const json* a = find(doc, "attributes")) {
    expect_object(*a, at / "attributes");
    g.attributes = *a;
  }
  return g;
}
}  // namespace

NodeMetadata parse_zarr_json(const json& doc, const FieldPath& at) {
  expect_object(doc, at);
  expect_zarr_format(doc, 3, at);
  std::string node_type = as_string(require(doc, "node_type", at), at / "node_type");
  if (node_type == "array") return parse_array_v3(doc, at);
  if (node_type == "group") return parse_group_v3(doc, at);
  fail(ErrorKind::invalid_metadata, at / "node_type", "expected \"array\" or \"group\", got \"" + node_type + "\"");
}

}  // namespace metadata

NodeMetadata parse_zarr_json(const json& doc, std::string_view path) {
  return metadata::parse_zarr_json(doc, metadata::FieldPath{path, ""});
}

GroupMetadata parse_zgroup(const json& zgroup, const json& zattrs, std::string_view path) {
  const metadata::FieldPath at{path, ""};
  metadata::expect_object(zgroup, at);
  metadata::expect_zarr_format(zgroup, 2, at);
  GroupMetadata g;
  g.zarr_format = 2;
  g.attributes = metadata::parse_zattrs(zattrs, metadata::FieldPath{path, ".zattrs"});
  return g;
}

json to_zarr_json(const GroupMetadata& m) {
  return {{"attributes", m.attributes}, {"zarr_format", 3}, {"node_type", "group"}};
}

json to_zgroup(const GroupMetadata&) { return {{"zarr_format", 2}}; }

}  // namespace zarrgpu
