// Decodes every array of the shared corpus (zarr-python 2 and TensorStore
// writes) chunk by chunk through CodecChain, and compares the SHA-256 of the
// assembled array with the corpus's expected digest.
#include <filesystem>
#include <fstream>

#include "codec/codec.hpp"
#include "codec/codec_fixtures.hpp"
#include "corpus/sha256.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::codec {
namespace {

namespace fs = std::filesystem;
using namespace testing;

json read_json(const fs::path& p) {
  std::ifstream f(p);
  return json::parse(f);
}

// The array in C order, fill value where chunks are missing.
std::vector<std::byte> read_array(const fs::path& dir, const ArrayMetadata& m) {
  ChunkRepresentation chunk{m.chunk_shape, m.data_type, m.fill_value};
  const CodecChain chain = CodecChain::build(m.codecs, chunk);
  const std::size_t e = size_of(m.data_type), n = m.ndim();
  std::vector<std::byte> out(m.num_elements() * e);
  std::vector<std::byte> buf(chunk.nbytes());
  const auto grid = m.grid_shape();
  std::uint64_t nchunks = 1;
  for (auto g : grid) nchunks *= g;
  std::vector<std::uint64_t> coords(n);
  for (std::uint64_t c = 0; c < nchunks; ++c) {
    for (std::size_t k = n, rest = c; k-- > 0;) { coords[k] = rest % grid[k]; rest /= grid[k]; }
    const fs::path key = dir / m.chunk_key_encoding.encode(coords);
    if (fs::exists(key)) {
      const auto stored = read_file(key.string());
      try {
        chain.decode(stored, buf);
      } catch (const Error& err) {
        ADD_FAILURE() << key << ": " << err.what();
        return out;
      }
    } else {
      for (std::size_t i = 0; i < chunk.num_elements(); ++i)
        std::memcpy(buf.data() + i * e, m.fill_value.is_null ? FillValue{}.bytes.data() : m.fill_value.bytes.data(), e);
    }
    // Copy the chunk's part inside the array, row by row along the last axis.
    if (n == 0) { std::memcpy(out.data(), buf.data(), e); continue; }
    std::uint64_t rows = 1;
    for (std::size_t k = 0; k + 1 < n; ++k) rows *= m.chunk_shape[k];
    for (std::uint64_t r = 0; r < rows; ++r) {
      std::uint64_t src = 0, dst = 0;
      bool inside = true;
      std::vector<std::uint64_t> idx(n, 0);
      for (std::size_t k = n - 1, rest = r; k-- > 0;) { idx[k] = rest % m.chunk_shape[k]; rest /= m.chunk_shape[k]; }
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint64_t g = coords[k] * m.chunk_shape[k] + idx[k];
        if (g >= m.shape[k]) inside = false;
        src = src * m.chunk_shape[k] + idx[k];
        dst = dst * m.shape[k] + g;
      }
      if (!inside) continue;
      const std::uint64_t len = std::min(m.chunk_shape[n - 1], m.shape[n - 1] - coords[n - 1] * m.chunk_shape[n - 1]);
      std::memcpy(out.data() + dst * e, buf.data() + src * e, len * e);
    }
  }
  return out;
}

void check_corpus(const char* expected_file) {
  const fs::path corpus = ZARRGPU_CORPUS_DIR;
  if (!fs::exists(corpus / expected_file)) GTEST_SKIP() << "no corpus at " << corpus;
  const json expected = read_json(corpus / expected_file);
  int checked = 0;
  for (const auto& [name, entry] : expected.items()) {
    SCOPED_TRACE(name);
    const fs::path dir = corpus / entry["store"].get<std::string>() / entry["array"].get<std::string>();
    ArrayMetadata m;
    try {
      if (fs::exists(dir / "zarr.json")) {
        m = std::get<ArrayMetadata>(parse_zarr_json(read_json(dir / "zarr.json"), name));
      } else {
        const json attrs = fs::exists(dir / ".zattrs") ? read_json(dir / ".zattrs") : json::object();
        m = parse_zarray(read_json(dir / ".zarray"), attrs, name);
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "metadata: " << e.what();
      continue;
    }
    const auto data = read_array(dir, m);
    EXPECT_EQ(zarrgpu::testing::sha256_hex(data), entry["sha256"].get<std::string>());
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST(CorpusCodecs, ZarrPython2Arrays) { check_corpus("expected_v2_s1.json"); }
TEST(CorpusCodecs, TensorStoreZarr3Arrays) { check_corpus("expected_v3_s11.json"); }

TEST(Sha256, KnownVector) {
  const std::string abc = "abc";
  EXPECT_EQ(zarrgpu::testing::sha256_hex(std::as_bytes(std::span(abc.data(), abc.size()))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace zarrgpu::codec
