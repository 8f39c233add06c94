// Node paths inside a store: "" is the root, parts are joined with "/".
#pragma once

#include <string>
#include <string_view>

namespace zarrgpu::engine {

// Strips leading and trailing "/" ("/a/b/" -> "a/b").
inline std::string normalize_node_path(std::string_view p) {
  while (!p.empty() && p.front() == '/') p.remove_prefix(1);
  while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  return std::string(p);
}

inline std::string join_key(std::string_view path, std::string_view name) {
  if (path.empty()) return std::string(name);
  if (name.empty()) return std::string(path);
  std::string k(path);
  k += '/';
  k += name;
  return k;
}

}  // namespace zarrgpu::engine
