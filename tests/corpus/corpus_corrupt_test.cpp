// Corrupt input gives an Error with the right kind and context, never a
// crash. Each test copies a corpus store to a temporary directory first (the
// corpus is read-only).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "corpus/corpus.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

namespace fs = std::filesystem;

class CorpusCorrupt : public ::testing::Test {
 protected:
  fs::path copy(const std::string& store) {
    dir_ = fs::temp_directory_path() / ("zarrgpu_corrupt_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::copy(testing::corpus_dir() / store, dir_, fs::copy_options::recursive);
    for (auto& e : fs::recursive_directory_iterator(dir_)) {
      fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
    }
    return dir_;
  }
  void TearDown() override { if (!dir_.empty()) fs::remove_all(dir_); }

  static void truncate(const fs::path& p, double keep) { fs::resize_file(p, std::uintmax_t(fs::file_size(p) * keep)); }
  static void flip(const fs::path& p, std::uintmax_t at) {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(std::streamoff(at));
    char c;
    f.get(c);
    f.seekp(std::streamoff(at));
    f.put(char(c ^ 0x5a));
  }
  static Error read_error(const fs::path& dir, const std::string& selection = "") {
    try {
      Array::open(open_store(dir.string()), "").read(Selection::parse(selection));
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "no error";
    return Error(ErrorKind::internal, "no error");
  }

  fs::path dir_;
};

TEST_F(CorpusCorrupt, TruncatedZstdChunkNamesArrayChunkAndCodec) {
  const auto d = copy("v3_zstd1_f4_s11.zarr");
  truncate(d / "c/0/1/0", 0.5);
  const Error e = read_error(d);
  EXPECT_EQ(e.kind(), ErrorKind::corrupt_data) << e.what();
  EXPECT_EQ(e.context().chunk_key, "c/0/1/0");
  EXPECT_EQ(e.context().codec, "zstd");
  EXPECT_EQ(e.context().store, "file://" + d.string());
  EXPECT_NE(std::string(e.what()).find("c/0/1/0"), std::string::npos);
}

TEST_F(CorpusCorrupt, FlippedByteFailsTheChecksum) {
  const auto d = copy("v3_zstd_crc_s11.zarr");
  flip(d / "c/1/0", 10);
  const Error e = read_error(d);
  EXPECT_EQ(e.kind(), ErrorKind::corrupt_data) << e.what();
  EXPECT_EQ(e.context().chunk_key, "c/1/0");
  EXPECT_EQ(e.context().codec, "crc32c");
}

TEST_F(CorpusCorrupt, TruncatedUncompressedChunkIsCorrupt) {
  const auto d = copy("v3_raw_f4_s11.zarr");
  fs::path chunk;
  for (auto& e : fs::recursive_directory_iterator(d / "c")) if (e.is_regular_file()) { chunk = e.path(); break; }
  truncate(chunk, 0.7);
  const Error e = read_error(d);
  EXPECT_EQ(e.kind(), ErrorKind::corrupt_data) << e.what();
  EXPECT_EQ(e.context().chunk_key, fs::relative(chunk, d).generic_string());
  EXPECT_FALSE(e.context().codec.empty());
}

TEST_F(CorpusCorrupt, TruncatedShardIsCorruptNamingTheShard) {
  const auto d = copy("v3_shard_end_s11.zarr");
  fs::path shard;
  for (auto& e : fs::recursive_directory_iterator(d / "c")) if (e.is_regular_file()) { shard = e.path(); break; }
  truncate(shard, 0.6);
  const Error e = read_error(d);
  EXPECT_TRUE(e.kind() == ErrorKind::corrupt_data) << e.what();
  EXPECT_EQ(e.context().chunk_key, fs::relative(shard, d).generic_string());
  EXPECT_FALSE(e.context().codec.empty());
}

TEST_F(CorpusCorrupt, BadJsonMetadataIsInvalidMetadata) {
  const auto d = copy("v3_zstd1_f4_s11.zarr");
  std::ofstream(d / "zarr.json", std::ios::trunc) << "{\"zarr_format\": 3, ";
  try {
    Array::open(open_store(d.string()));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_metadata);
    EXPECT_NE(std::string(e.what()).find("zarr.json"), std::string::npos) << e.what();
  }
}

TEST_F(CorpusCorrupt, BadV2MetadataIsInvalidMetadata) {
  const auto d = copy("v2_zstd1_f4_s1.zarr");
  std::ofstream(d / ".zarray", std::ios::trunc) << "[1, 2";
  try {
    Array::open(open_store(d.string()));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_metadata);
    EXPECT_NE(std::string(e.what()).find(".zarray"), std::string::npos) << e.what();
  }
}

TEST_F(CorpusCorrupt, DeletedMetadataIsNotFound) {
  const auto d = copy("v3_zstd1_f4_s11.zarr");
  fs::remove(d / "zarr.json");
  try {
    Array::open(open_store(d.string()));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found);
    EXPECT_EQ(e.context().store, "file://" + d.string());
  }
}

TEST_F(CorpusCorrupt, OutOfBoundsSelectionNamesTheDimension) {
  const auto d = copy("v3_zstd1_f4_s11.zarr");
  const Error e = read_error(d, "0,45");
  EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  EXPECT_NE(std::string(e.what()).find("dimension 1"), std::string::npos) << e.what();
  EXPECT_EQ(read_error(d, "0,0,0,0").kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(read_error(d, "::0").kind(), ErrorKind::invalid_argument);
}

TEST_F(CorpusCorrupt, WritingToACopyLeavesTheCorpusAlone) {
  const auto d = copy("v3_zstd1_f4_s11.zarr");
  Array a = Array::open(open_store(d.string()));
  std::vector<float> ones(16 * 45 * 33, 1.0f);
  a.write(Selection::parse("16:32"), std::as_bytes(std::span(ones)));
  const Bytes got = a.read(Selection::parse("16:32"));
  EXPECT_EQ(std::memcmp(got.data(), ones.data(), got.size()), 0);
  const Bytes before = a.read(Selection::parse("0:16"));
  const Bytes orig = Array::open(open_store((testing::corpus_dir() / "v3_zstd1_f4_s11.zarr").string())).read(Selection::parse("0:16"));
  EXPECT_EQ(std::memcmp(before.data(), orig.data(), orig.size()), 0);
}

}  // namespace
}  // namespace zarrgpu
