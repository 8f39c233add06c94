#include "cli_args.hpp"

#include <algorithm>
#include <charconv>

namespace zarrgpu::cli {

namespace {
const OptionSpec* find_spec(const std::vector<OptionSpec>& specs, std::string_view name) {
  for (const auto& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}
}  // namespace

Args Args::parse(const std::vector<std::string>& tokens, const std::vector<OptionSpec>& specs) {
  Args a;
  bool options_done = false;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (options_done || t.size() < 2 || t[0] != '-' || (t[1] != '-' && t != "-h")) {
      // A lone "-" or a negative number-like word is positional.
      a.positionals_.push_back(t);
      continue;
    }
    if (t == "--") { options_done = true; continue; }
    std::string name = t == "-h" ? "help" : t.substr(2);
    std::optional<std::string> inline_value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    const OptionSpec* spec = find_spec(specs, name);
    if (!spec) throw UsageError("unknown option '--" + name + "'");
    if (!spec->takes_value) {
      if (inline_value) throw UsageError("option '--" + name + "' takes no value");
      a.values_[name] = "1";
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= tokens.size()) throw UsageError("option '--" + name + "' needs a value");
      inline_value = tokens[++i];
    }
    if (a.values_.count(name)) throw UsageError("option '--" + name + "' given twice");
    a.values_[name] = *inline_value;
  }
  return a;
}

bool Args::flag(std::string_view name) const { return values_.find(name) != values_.end(); }

std::optional<std::string> Args::value(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::value_or(std::string_view name, std::string fallback) const {
  auto v = value(name);
  return v ? *v : std::move(fallback);
}

std::optional<long long> Args::integer(std::string_view name) const {
  auto v = value(name);
  if (!v) return std::nullopt;
  auto n = parse_integer(*v);
  if (!n) throw UsageError("option '--" + std::string(name) + "' needs an integer, got '" + *v + "'");
  return n;
}

std::optional<long long> parse_integer(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string format_options(const std::vector<OptionSpec>& specs) {
  std::vector<std::string> heads;
  std::size_t width = 0;
  for (const auto& s : specs) {
    std::string h = "  --" + s.name;
    if (s.takes_value) h += " " + (s.value_name.empty() ? std::string("VALUE") : s.value_name);
    width = std::max(width, h.size());
    heads.push_back(std::move(h));
  }
  std::string out;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    out += heads[i];
    out.append(width + 2 - heads[i].size(), ' ');
    out += specs[i].help;
    out += '\n';
  }
  return out;
}

}  // namespace zarrgpu::cli
