#include "store_location.hpp"

#include <filesystem>
#include <vector>

namespace zarrgpu::cli {

namespace fs = std::filesystem;

std::string normalize_node_path(const std::string& p) {
  std::string out;
  std::size_t i = 0;
  while (i < p.size()) {
    while (i < p.size() && p[i] == '/') ++i;
    std::size_t j = i;
    while (j < p.size() && p[j] != '/') ++j;
    if (j > i) {
      std::string part = p.substr(i, j - i);
      if (part != ".") {
        if (!out.empty()) out += '/';
        out += part;
      }
    }
    i = j;
  }
  return out;
}

bool is_zarr_node_dir(const std::string& dir) {
  std::error_code ec;
  for (const char* marker : {"zarr.json", ".zgroup", ".zarray"})
    if (fs::is_regular_file(fs::path(dir) / marker, ec)) return true;
  return false;
}

StoreLocation locate_store(const std::string& arg, const std::optional<std::string>& explicit_path) {
  std::string a = arg;
  if (a.rfind("file://", 0) == 0) a = a.substr(7);
  // Remote stores (http://, https://) and memory:// are not searched: the URL is
  // the root, --array/--path the node inside it.
  if (explicit_path || a.find("://") != std::string::npos)
    return {a, explicit_path ? normalize_node_path(*explicit_path) : std::string()};

  // Walk from the given path towards the file system root. `below` collects
  // the components between the candidate and the given path.
  fs::path given = fs::path(a).lexically_normal();
  if (given.has_filename() == false && given.has_parent_path()) given = given.parent_path();
  std::error_code ec;
  fs::path abs = fs::absolute(given, ec);
  if (ec) return {a, ""};
  std::vector<fs::path> chain;  // abs, parent, grandparent, ...
  for (fs::path p = abs;; p = p.parent_path()) {
    chain.push_back(p);
    if (p == p.parent_path() || p.empty()) break;
  }
  // The deepest node directory on the chain...
  std::size_t k = 0;
  while (k < chain.size() && !is_zarr_node_dir(chain[k].string())) ++k;
  if (k == chain.size()) return {a, ""};  // no Zarr node at all: let open() report it
  // ...then up while the parent is a node too.
  while (k + 1 < chain.size() && is_zarr_node_dir(chain[k + 1].string())) ++k;
  if (k == 0) return {a, ""};
  // Express the root as the user wrote it when possible (messages stay short).
  fs::path rel = abs.lexically_relative(chain[k]);
  fs::path root = given;
  for (std::size_t i = 0; i < k; ++i) root = root.parent_path();
  std::string root_s = root.empty() ? std::string(".") : root.string();
  if (!fs::exists(root_s, ec) || fs::absolute(root_s, ec).lexically_normal() != chain[k]) root_s = chain[k].string();
  return {root_s, normalize_node_path(rel.generic_string())};
}

}  // namespace zarrgpu::cli
