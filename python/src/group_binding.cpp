// zarrgpu._zarrgpu.Group and open_node: groups, their members and (consolidated) tree.
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/vector.h>

#include "engine/node_documents.hpp"
#include "store/store_options.hpp"
#include "node_json.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {

void bind_group(nb::module_& m) {
  nb::class_<Group>(m, "Group")
      .def_static("open",
                  [](const std::string& url, const std::string& path, std::optional<bool> consolidated) {
                    auto store = open_store(url);
                    nb::gil_scoped_release release;
                    return Group::open(std::move(store), path, consolidated);
                  },
                  nb::arg("url"), nb::arg("path") = "", nb::arg("consolidated") = nb::none())
      .def_static("create",
                  [](const std::string& url, const std::string& path, int zarr_format,
                     const std::string& attributes_doc, bool overwrite) {
                    GroupMetadata meta;
                    meta.zarr_format = zarr_format;
                    meta.attributes = parse_metadata_document(attributes_doc, {path, "", "", url});
                    auto store = open_store(url, /*create=*/true);
                    nb::gil_scoped_release release;
                    return Group::create(std::move(store), path, std::move(meta), overwrite);
                  },
                  nb::arg("url"), nb::arg("path"), nb::arg("zarr_format") = 3, nb::arg("attributes") = "{}",
                  nb::arg("overwrite") = false)
      .def_prop_ro("path", [](const Group& g) { return g.path(); })
      .def_prop_ro("metadata", [](const Group& g) { return to_python(describe(g.metadata())); })
      .def_prop_ro("is_consolidated", &Group::is_consolidated)
      .def("members", [](const Group& g) { nb::gil_scoped_release r; return g.members(); })
      .def("tree",
           [](const Group& g) {
             std::map<std::string, TreeNode> tree;
             {
               nb::gil_scoped_release r;
               tree = g.tree();
             }
             json doc = json::object();
             for (const auto& [path, node] : tree) doc[path] = describe(node);
             return to_python(doc);
           },
           "Every node below this group: relative path -> metadata (consolidated when available).")
      .def("member",
           [](const Group& g, const std::string& p) {
             TreeNode node;
             {
               nb::gil_scoped_release r;
               node = g.member(p);
             }
             return to_python(describe(node));
           },
           "One node below this group, as tree() lists it (never raises for an unreadable node).")
      .def("open_array", [](const Group& g, const std::string& p) { nb::gil_scoped_release r; return g.open_array(p); })
      .def("open_group", [](const Group& g, const std::string& p) { nb::gil_scoped_release r; return g.open_group(p); })
      .def("set_attributes", [](Group& g, const std::string& attributes_doc) {
        nb::gil_scoped_release r;
        g.set_attributes(attributes_doc);
      });

  m.def("open_member",
        [](const std::string& url, const std::string& path, std::optional<bool> consolidated) -> nb::object {
          // One read of the node's own documents decides array or group; an
          // array is built from them without reading them again.
          auto store = open_store(url);
          NodeMetadata node;
          {
            nb::gil_scoped_release r;
            node = open_node(*store, path);
          }
          if (auto* a = std::get_if<ArrayMetadata>(&node)) {
            std::optional<Array> array;
            {
              nb::gil_scoped_release r;
              array.emplace(store, path, std::move(*a));
            }
            return nb::cast(std::move(*array));
          }
          std::optional<Group> group;
          {
            nb::gil_scoped_release r;
            group.emplace(Group::open(store, path, consolidated));
          }
          return nb::cast(std::move(*group));
        },
        nb::arg("url"), nb::arg("path") = "", nb::arg("consolidated") = nb::none(),
        "The node at `path`: an Array (from one read of its metadata) or a Group.");

  m.def("set_store_options", &set_store_options, nb::arg("url"), nb::arg("options"),
        "Options (S3: region, endpoint_url, profile, key, secret, token, anon) for the store at `url` "
        "and below, for this process: Python's storage_options.");
  m.def("consolidate_metadata",
        [](const std::string& url, const std::string& path) {
          auto store = open_store(url);
          nb::gil_scoped_release r;
          consolidate_metadata(std::move(store), path);
        },
        nb::arg("url"), nb::arg("path") = "",
        "Writes the group's consolidated metadata from its members' own metadata.");

  m.def("open_node",
        [](const std::string& url, const std::string& path) {
          auto store = open_store(url);
          NodeMetadata node;
          {
            nb::gil_scoped_release r;
            node = open_node(*store, path);
          }
          return to_python(describe(node));
        },
        nb::arg("url"), nb::arg("path") = "", "The metadata of the node at `path`: an array or a group.");
}

}  // namespace zarrgpu::python
