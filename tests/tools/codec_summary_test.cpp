#include <gtest/gtest.h>

#include "codec_summary.hpp"

using namespace zarrgpu;
using namespace zarrgpu::cli;

TEST(CodecSummary, SimpleChain) {
  std::vector<CodecSpec> chain{{"bytes", json{{"endian", "little"}}}, {"zstd", json{{"level", 3}, {"checksum", false}}}};
  EXPECT_EQ(summarize_codecs(chain), "bytes(little) | zstd(3)");
}

TEST(CodecSummary, TransposeBloscGzipCrc) {
  std::vector<CodecSpec> chain{{"transpose", json{{"order", {1, 0}}}},
                               {"bytes", json{{"endian", "big"}}},
                               {"blosc", json{{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"typesize", 4}}},
                               {"gzip", json{{"level", 6}}},
                               {"crc32c", json::object()}};
  EXPECT_EQ(summarize_codecs(chain), "transpose(1,0) | bytes(big) | blosc(lz4,5,shuffle) | gzip(6) | crc32c");
}

TEST(CodecSummary, ShardingNestedAndIndexStart) {
  json inner = json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}},
                               {"name":"zstd","configuration":{"level":3,"checksum":false}}])");
  json index = json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}])");
  CodecSpec s{"sharding_indexed", json{{"chunk_shape", {8, 8}}, {"codecs", inner}, {"index_codecs", index}}};
  std::vector<CodecSpec> chain{s};
  EXPECT_EQ(summarize_codecs(chain), "sharding_indexed[8,8](bytes(little) | zstd(3)) index(bytes(little) | crc32c)");
  EXPECT_EQ(inner_chunk_shape(chain), (std::vector<std::uint64_t>{8, 8}));
  s.configuration["index_location"] = "start";
  EXPECT_EQ(summarize_codec(s), "sharding_indexed[8,8](bytes(little) | zstd(3)) index[start](bytes(little) | crc32c)");
}

TEST(CodecSummary, UnknownCodecsAndMalformedInput) {
  CodecSpec d{"numcodecs.delta", json{{"dtype", "<f4"}}};
  EXPECT_EQ(summarize_codec(d), "numcodecs.delta(dtype=<f4)");
  CodecSpec bad{"sharding_indexed", json{{"codecs", 5}}};
  EXPECT_EQ(summarize_codec(bad), "sharding_indexed[?]() index()");
  EXPECT_TRUE(inner_chunk_shape(std::vector<CodecSpec>{bad}).empty());
  EXPECT_EQ(codec_specs_from_json(json::parse(R"([{"x":1}, 3])")).size(), 2u);
}
