#include "codec_summary.hpp"

namespace zarrgpu::cli {

namespace {
std::string scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string join_ints(const json& a) {
  std::string s;
  if (!a.is_array()) return scalar(a);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i) s += ",";
    s += scalar(a[i]);
  }
  return s;
}
}  // namespace

std::vector<CodecSpec> codec_specs_from_json(const json& list) {
  std::vector<CodecSpec> out;
  if (!list.is_array()) return out;
  for (const auto& c : list) {
    CodecSpec s;
    if (c.is_object()) {
      auto n = c.find("name");
      s.name = (n != c.end() && n->is_string()) ? n->get<std::string>() : "?";
      auto cfg = c.find("configuration");
      if (cfg != c.end() && cfg->is_object()) s.configuration = *cfg;
    } else if (c.is_string()) {
      s.name = c.get<std::string>();
    } else {
      s.name = "?";
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string summarize_codec(const CodecSpec& c) {
  const json& cfg = c.configuration.is_object() ? c.configuration : json::object();
  auto get = [&](const char* k) -> const json* {
    auto it = cfg.find(k);
    return it == cfg.end() ? nullptr : &*it;
  };
  if (c.name == "bytes") {
    if (auto e = get("endian")) return "bytes(" + scalar(*e) + ")";
    return "bytes";
  }
  if (c.name == "zstd") {
    std::string s = "zstd(";
    s += get("level") ? scalar(*get("level")) : "?";
    if (auto ck = get("checksum"); ck && ck->is_boolean() && ck->get<bool>()) s += ",checksum";
    return s + ")";
  }
  if (c.name == "gzip") return "gzip(" + (get("level") ? scalar(*get("level")) : std::string("?")) + ")";
  if (c.name == "crc32c") return "crc32c";
  if (c.name == "blosc") {
    std::string s = "blosc(";
    s += get("cname") ? scalar(*get("cname")) : "?";
    s += ",";
    s += get("clevel") ? scalar(*get("clevel")) : "?";
    s += ",";
    s += get("shuffle") ? scalar(*get("shuffle")) : "?";
    return s + ")";
  }
  if (c.name == "transpose") return "transpose(" + (get("order") ? join_ints(*get("order")) : std::string("?")) + ")";
  if (c.name == "sharding_indexed") {
    std::string s = "sharding_indexed[" + (get("chunk_shape") ? join_ints(*get("chunk_shape")) : std::string("?")) + "](";
    auto inner = get("codecs") ? codec_specs_from_json(*get("codecs")) : std::vector<CodecSpec>{};
    s += summarize_codecs(inner) + ") index";
    if (auto loc = get("index_location"); loc && loc->is_string() && loc->get<std::string>() == "start")
      s += "[start]";
    auto idx = get("index_codecs") ? codec_specs_from_json(*get("index_codecs")) : std::vector<CodecSpec>{};
    return s + "(" + summarize_codecs(idx) + ")";
  }
  std::string s = c.name;
  if (cfg.empty()) return s;
  s += "(";
  bool first = true;
  for (auto it = cfg.begin(); it != cfg.end(); ++it) {
    if (!first) s += ",";
    first = false;
    s += it.key() + "=" + scalar(it.value());
  }
  return s + ")";
}

std::string summarize_codecs(std::span<const CodecSpec> chain) {
  std::string s;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    if (i) s += " | ";
    s += summarize_codec(chain[i]);
  }
  return s;
}

std::vector<std::uint64_t> inner_chunk_shape(std::span<const CodecSpec> chain) {
  std::vector<std::uint64_t> out;
  if (chain.empty() || chain.front().name != "sharding_indexed") return out;
  const json& cfg = chain.front().configuration;
  auto it = cfg.find("chunk_shape");
  if (it == cfg.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (!v.is_number_unsigned() && !v.is_number_integer()) return {};
    out.push_back(v.get<std::uint64_t>());
  }
  return out;
}

}  // namespace zarrgpu::cli
