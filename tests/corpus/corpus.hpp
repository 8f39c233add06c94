// The shared conformance corpus (../shared/corpus): its expected_*.json entries.
#pragma once

#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace zarrgpu::testing {

struct CorpusEntry {
  std::string name, store, array, dtype, sha256;
  std::vector<std::uint64_t> shape;
};

inline std::filesystem::path corpus_dir() { return ZARRGPU_CORPUS_DIR; }

inline std::vector<CorpusEntry> corpus_entries() {
  std::vector<CorpusEntry> out;
  for (const char* f : {"expected_v2_s1.json", "expected_v3_s11.json"}) {
    std::ifstream in(corpus_dir() / f);
    if (!in) continue;
    const auto doc = nlohmann::json::parse(in);
    for (const auto& [name, e] : doc.items()) {
      out.push_back({name, e["store"], e["array"], e["dtype"], e["sha256"], e["shape"].get<std::vector<std::uint64_t>>()});
    }
  }
  return out;
}

inline std::string sha256_hex(const void* data, std::size_t n) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data, n, md, &len, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) { s += hex[md[i] >> 4]; s += hex[md[i] & 15]; }
  return s;
}

// A gtest-safe name ("v3_group_plain_s11/data" -> "v3_group_plain_s11_data").
inline std::string test_name(std::string s) {
  for (auto& c : s) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace zarrgpu::testing
