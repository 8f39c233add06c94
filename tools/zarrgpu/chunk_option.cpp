#include "chunk_option.hpp"

#include <algorithm>

#include "cli_args.hpp"

namespace zarrgpu::cli {

namespace {
std::uint64_t parse_size(std::string_view s, std::string_view text, std::string_view option) {
  if (s == "full") return 0;
  auto v = parse_integer(s);
  if (!v || *v < 1)
    throw UsageError("bad " + std::string(option) + " '" + std::string(text) + "': '" + std::string(s) +
                     "' is not a positive integer or 'full'");
  return static_cast<std::uint64_t>(*v);
}
}  // namespace

ChunkOption parse_chunk_option(std::string_view text, std::string_view option) {
  ChunkOption o;
  if (text.empty()) throw UsageError(std::string(option) + " needs a value such as 1,721,1440 or time=1");
  std::size_t start = 0;
  bool any_named = false, any_plain = false;
  for (;;) {
    auto p = text.find(',', start);
    std::string_view part = text.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start);
    if (auto eq = part.find('='); eq != std::string_view::npos) {
      any_named = true;
      std::string name(part.substr(0, eq));
      if (name.empty())
        throw UsageError("bad " + std::string(option) + " '" + std::string(text) + "': empty dimension name");
      for (const auto& [n, _] : o.named)
        if (n == name)
          throw UsageError("bad " + std::string(option) + " '" + std::string(text) + "': '" + name + "' given twice");
      o.named.emplace_back(name, parse_size(part.substr(eq + 1), text, option));
    } else {
      any_plain = true;
      o.sizes.push_back(parse_size(part, text, option));
    }
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  if (any_named && any_plain)
    throw UsageError("bad " + std::string(option) + " '" + std::string(text) +
                     "': use either sizes for every dimension or name=size pairs, not both");
  return o;
}

ChunkRules parse_chunk_rules(std::string_view text, std::string_view option) {
  ChunkRules rules;
  if (text.empty()) throw UsageError(std::string(option) + " needs a value such as 1,721,1440 or time=1");
  std::size_t start = 0;
  for (;;) {
    const auto semi = text.find(';', start);
    std::string_view spec = text.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
    if (const auto colon = spec.find(':'); colon != std::string_view::npos) {
      std::string path(spec.substr(0, colon));
      while (!path.empty() && path.front() == '/') path.erase(path.begin());
      while (!path.empty() && path.back() == '/') path.pop_back();
      if (path.empty())
        throw UsageError("bad " + std::string(option) + " '" + std::string(text) + "': empty array path before ':'");
      for (const auto& [p, _] : rules.by_path)
        if (p == path)
          throw UsageError("bad " + std::string(option) + " '" + std::string(text) + "': '" + path + "' given twice");
      rules.by_path.emplace_back(std::move(path), parse_chunk_option(spec.substr(colon + 1), option));
    } else {
      if (rules.general)
        throw UsageError("bad " + std::string(option) + " '" + std::string(text) +
                         "': more than one spec without an array path");
      rules.general = parse_chunk_option(spec, option);
    }
    if (semi == std::string_view::npos) break;
    start = semi + 1;
  }
  return rules;
}

bool is_dimension_coordinate(std::string_view path, std::span<const std::string> dim_names) {
  if (dim_names.size() != 1) return false;
  const auto slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return !base.empty() && dim_names[0] == base;
}

const ChunkOption* ChunkRules::for_array(std::string_view path, std::span<const std::string> dim_names, bool in_group,
                                         bool* is_by_path) const {
  if (is_by_path) *is_by_path = false;
  for (const auto& [p, o] : by_path) {
    if (p == path) {
      if (is_by_path) *is_by_path = true;
      return &o;
    }
  }
  if (!general) return nullptr;
  if (in_group && is_dimension_coordinate(path, dim_names)) return nullptr;
  return &*general;
}

std::vector<std::uint64_t> resolve_chunk_option(const ChunkOption& opt, std::span<const std::uint64_t> shape,
                                                std::span<const std::string> dim_names,
                                                std::span<const std::uint64_t> defaults,
                                                std::string_view option, std::string_view array,
                                                bool strict) {
  std::vector<std::uint64_t> out(defaults.begin(), defaults.end());
  auto full = [&](std::size_t d, std::uint64_t v) { return v == 0 ? std::max<std::uint64_t>(shape[d], 1) : v; };
  if (!opt.is_named()) {
    if (opt.sizes.size() != shape.size()) {
      if (!strict) return out;
      throw UsageError(std::string(option) + " gives " + std::to_string(opt.sizes.size()) + " sizes but array '" +
                       std::string(array) + "' has " + std::to_string(shape.size()) + " dimensions");
    }
    for (std::size_t d = 0; d < shape.size(); ++d) out[d] = full(d, opt.sizes[d]);
    return out;
  }
  for (const auto& [name, size] : opt.named) {
    auto it = std::find(dim_names.begin(), dim_names.end(), name);
    if (it == dim_names.end()) {
      if (!strict) continue;
      std::string known;
      for (const auto& n : dim_names) known += (known.empty() ? "" : ", ") + (n.empty() ? std::string("(unnamed)") : n);
      throw UsageError(std::string(option) + ": array '" + std::string(array) + "' has no dimension '" + name +
                       "' (its dimensions: " + (known.empty() ? std::string("none") : known) + ")");
    }
    std::size_t d = static_cast<std::size_t>(it - dim_names.begin());
    out[d] = full(d, size);
  }
  return out;
}

}  // namespace zarrgpu::cli
