// zarrgpu._zarrgpu.Group and open_node: groups, their members and (consolidated) tree.
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "node_json.hpp"
#include "zarrgpu/array.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {

void bind_group(nb::module_& m) {
  nb::class_<Group>(m, "Group")
      .def_static("open",
                  [](const std::string& url, const std::string& path) {
                    auto store = open_store(url);
                    nb::gil_scoped_release release;
                    return Group::open(std::move(store), path);
                  },
                  nb::arg("url"), nb::arg("path") = "")
      .def_static("create",
                  [](const std::string& url, const std::string& path, int zarr_format,
                     const std::string& attributes_doc, bool overwrite) {
                    GroupMetadata meta;
                    meta.zarr_format = zarr_format;
                    meta.attributes = json::parse(attributes_doc);
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
             std::map<std::string, NodeMetadata> tree;
             {
               nb::gil_scoped_release r;
               tree = g.tree();
             }
             json doc = json::object();
             for (const auto& [path, node] : tree) doc[path] = describe(node);
             return to_python(doc);
           },
           "Every node below this group: relative path -> metadata (consolidated when available).")
      .def("open_array", [](const Group& g, const std::string& p) { nb::gil_scoped_release r; return g.open_array(p); })
      .def("open_group", [](const Group& g, const std::string& p) { nb::gil_scoped_release r; return g.open_group(p); });

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
