// The conformance corpus (tests/corpus/data, in the repository) and its expected_*.json
// entries; a further corpus at ZARRGPU_EXTRA_CORPUS_DIR (../shared/corpus), when present,
// adds the entries whose names the repository's corpus lacks.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "corpus/sha256.hpp"

namespace zarrgpu::testing {

struct CorpusEntry {
  std::string name, store, array, dtype, sha256;
  std::vector<std::uint64_t> shape;
  std::filesystem::path root;  // the corpus directory `store` is in

  std::filesystem::path store_path() const { return root / store; }
};

inline std::filesystem::path corpus_dir() { return ZARRGPU_CORPUS_DIR; }

// The repository's entries, then the further corpus's new ones (by name).
inline std::vector<CorpusEntry> corpus_entries() {
  namespace fs = std::filesystem;
  std::vector<CorpusEntry> out;
  std::set<std::string> seen;
  std::error_code ec;
  for (const fs::path root : {fs::path(ZARRGPU_CORPUS_DIR), fs::path(ZARRGPU_EXTRA_CORPUS_DIR)}) {
    if (!fs::is_directory(root, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(root)) {
      const std::string n = f.path().filename().string();
      if (n.starts_with("expected_") && f.path().extension() == ".json") files.push_back(f.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      const auto doc = nlohmann::json::parse(in);
      for (const auto& [name, e] : doc.items()) {
        if (!seen.insert(name).second) continue;
        out.push_back({name, e["store"], e["array"], e["dtype"], e["sha256"],
                       e["shape"].get<std::vector<std::uint64_t>>(), root});
      }
    }
  }
  return out;
}

// A gtest-safe name ("v3_group_plain_s11/data" -> "v3_group_plain_s11_data").
inline std::string test_name(std::string s) {
  for (auto& c : s) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace zarrgpu::testing
