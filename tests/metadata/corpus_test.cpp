// Every metadata document of the conformance corpus parses, and its shape
// and data type agree with expected_*.json.
#include <algorithm>
#include <filesystem>

#include "metadata_test_support.hpp"

namespace zarrgpu {
namespace {
namespace fs = std::filesystem;
using testing::read_json_file;

const fs::path kCorpus = ZARRGPU_CORPUS_DIR;

json read_or_null(const fs::path& p) { return fs::exists(p) ? read_json_file(p.string()) : json(nullptr); }

// The node path of `dir` inside `store` ("" for the root).
std::string node_path(const fs::path& store, const fs::path& dir) {
  std::string rel = fs::relative(dir, store).generic_string();
  return rel == "." ? "" : rel;
}

std::vector<fs::path> stores() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kCorpus))
    if (e.is_directory() && e.path().extension() == ".zarr") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Corpus, EveryMetadataDocumentParsesAndRoundTrips) {
  ASSERT_TRUE(fs::is_directory(kCorpus)) << kCorpus;
  int documents = 0;
  for (const auto& store : stores()) {
    for (const auto& e : fs::recursive_directory_iterator(store)) {
      const fs::path& p = e.path();
      const std::string name = p.filename().string();
      const std::string node = node_path(store, p.parent_path());
      SCOPED_TRACE(p.string());
      if (name == "zarr.json") {
        json doc = read_json_file(p.string());
        NodeMetadata n = parse_zarr_json(doc, node);
        if (auto* a = std::get_if<ArrayMetadata>(&n)) {
          EXPECT_EQ(std::get<ArrayMetadata>(parse_zarr_json(to_zarr_json(*a), node)), *a);
          // The codec list is carried as written (TensorStore omits empty configurations too).
          EXPECT_EQ(to_zarr_json(*a)["codecs"], doc["codecs"]);
        } else {
          EXPECT_NO_THROW(parse_consolidated_v3(doc, node));
        }
        ++documents;
      } else if (name == ".zarray") {
        json doc = read_json_file(p.string());
        ArrayMetadata a = parse_zarray(doc, read_or_null(p.parent_path() / ".zattrs"), node);
        json written = to_zarray(a);
        if (!doc.contains("dimension_separator")) written.erase("dimension_separator");  // older writers
        EXPECT_EQ(written, doc);
        ++documents;
      } else if (name == ".zgroup") {
        parse_zgroup(read_json_file(p.string()), read_or_null(p.parent_path() / ".zattrs"), node);
        ++documents;
      } else if (name == ".zmetadata") {
        parse_zmetadata(read_json_file(p.string()), node);
        ++documents;
      }
    }
  }
  EXPECT_GE(documents, 60);
}

// The array at `array` inside `store`, from whichever format it uses.
ArrayMetadata open_array(const fs::path& store, const std::string& array) {
  const fs::path dir = array.empty() ? store : store / array;
  if (fs::exists(dir / "zarr.json")) return std::get<ArrayMetadata>(parse_zarr_json(read_json_file((dir / "zarr.json").string()), array));
  return parse_zarray(read_json_file((dir / ".zarray").string()), read_or_null(dir / ".zattrs"), array);
}

void check_expected(const char* file) {
  json expected = read_json_file((kCorpus / file).string());
  ASSERT_GT(expected.size(), 20u);
  for (const auto& [name, e] : expected.items()) {
    SCOPED_TRACE(name);
    ArrayMetadata a = open_array(kCorpus / e["store"].get<std::string>(), e["array"].get<std::string>());
    EXPECT_EQ(json(a.shape), e["shape"]);
    EXPECT_EQ(numpy_str(a.data_type), e["dtype"].get<std::string>());
    EXPECT_EQ(a.chunk_shape.size(), a.shape.size());
  }
}

TEST(Corpus, ShapesAndDataTypesMatchExpectedV2) { check_expected("expected_v2_s1.json"); }
TEST(Corpus, ShapesAndDataTypesMatchExpectedV3) { check_expected("expected_v3_s11.json"); }

}  // namespace
}  // namespace zarrgpu
