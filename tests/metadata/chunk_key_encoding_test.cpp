#include <vector>

#include "metadata_test_support.hpp"

namespace zarrgpu {
namespace {
using testing::throws_error;

std::string encode(ChunkKeyEncoding e, std::vector<std::uint64_t> coords) { return e.encode(coords); }

TEST(ChunkKeyEncoding, Default) {
  ChunkKeyEncoding slash{ChunkKeyEncoding::Kind::default_, '/'};
  EXPECT_EQ(encode(slash, {1, 23, 0}), "c/1/23/0");
  EXPECT_EQ(encode(slash, {}), "c");
  ChunkKeyEncoding dot{ChunkKeyEncoding::Kind::default_, '.'};
  EXPECT_EQ(encode(dot, {4, 5}), "c.4.5");
  EXPECT_EQ(encode(dot, {18446744073709551615ull}), "c.18446744073709551615");
}

TEST(ChunkKeyEncoding, V2) {
  ChunkKeyEncoding dot{ChunkKeyEncoding::Kind::v2, '.'};
  EXPECT_EQ(encode(dot, {1, 23, 0}), "1.23.0");
  EXPECT_EQ(encode(dot, {7}), "7");
  EXPECT_EQ(encode(dot, {}), "0");
  ChunkKeyEncoding slash{ChunkKeyEncoding::Kind::v2, '/'};
  EXPECT_EQ(encode(slash, {2, 3}), "2/3");
}

json array_doc(json cke) {
  return {{"zarr_format", 3}, {"node_type", "array"}, {"shape", {4}}, {"data_type", "uint8"},
          {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {2}}}}}},
          {"chunk_key_encoding", std::move(cke)}, {"fill_value", 0}, {"codecs", {{{"name", "bytes"}}}}};
}

ChunkKeyEncoding parsed(json cke) {
  return std::get<ArrayMetadata>(parse_zarr_json(array_doc(std::move(cke)), "a")).chunk_key_encoding;
}

TEST(ChunkKeyEncoding, ParsesNamesAndSeparatorDefaults) {
  EXPECT_EQ(parsed({{"name", "default"}}), (ChunkKeyEncoding{ChunkKeyEncoding::Kind::default_, '/'}));
  EXPECT_EQ(parsed({{"name", "default"}, {"configuration", {{"separator", "."}}}}),
            (ChunkKeyEncoding{ChunkKeyEncoding::Kind::default_, '.'}));
  EXPECT_EQ(parsed({{"name", "v2"}}), (ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '.'}));
  EXPECT_EQ(parsed({{"name", "v2"}, {"configuration", {{"separator", "/"}}}}),
            (ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '/'}));
  EXPECT_EQ(parsed({{"name", "v2"}, {"configuration", json::object()}}),
            (ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '.'}));
}

TEST(ChunkKeyEncoding, RejectsBadEncodings) {
  EXPECT_TRUE(throws_error([] { parsed({{"name", "hashed"}}); }, ErrorKind::unsupported,
                           {"'a'", "chunk_key_encoding.name", "hashed"}));
  EXPECT_TRUE(throws_error([] { parsed({{"name", "default"}, {"configuration", {{"separator", "-"}}}}); },
                           ErrorKind::invalid_metadata, {"chunk_key_encoding.configuration.separator", "\"-\""}));
  EXPECT_TRUE(throws_error([] { parsed({{"name", "default"}, {"configuration", {{"separator", 1}}}}); },
                           ErrorKind::invalid_metadata, {"separator", "expected a string"}));
  EXPECT_TRUE(throws_error([] { parsed({{"configuration", json::object()}}); }, ErrorKind::invalid_metadata,
                           {"chunk_key_encoding.name", "missing"}));
  EXPECT_TRUE(throws_error([] { parsed("default"); }, ErrorKind::invalid_metadata,
                           {"chunk_key_encoding", "expected an object"}));
  EXPECT_TRUE(throws_error([] { parsed({{"name", "v2"}, {"configuration", {{"sep", "/"}}}}); },
                           ErrorKind::invalid_metadata, {"chunk_key_encoding.configuration.sep"}));
}

}  // namespace
}  // namespace zarrgpu
