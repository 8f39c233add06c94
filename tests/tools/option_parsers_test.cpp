// --codec, --chunks/--shard and byte sizes.
#include <gtest/gtest.h>

#include "byte_size.hpp"
#include "chunk_option.hpp"
#include "cli_args.hpp"
#include "codec_option.hpp"

using namespace zarrgpu;
using namespace zarrgpu::cli;

TEST(CodecOption, Zstd) {
  auto c = parse_codec_option("zstd:3");
  EXPECT_EQ(c.kind, CodecChoice::Kind::zstd);
  EXPECT_EQ(c.level, 3);
  auto specs = c.v3_codecs(4);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].name, "zstd");
  EXPECT_EQ(specs[0].configuration, (json{{"level", 3}, {"checksum", false}}));
  EXPECT_EQ(c.v2_compressor(), (json{{"id", "zstd"}, {"level", 3}}));
  EXPECT_EQ(parse_codec_option("zstd").level, 3);
}

TEST(CodecOption, BloscDefaultsAndFull) {
  auto c = parse_codec_option("blosc:zstd:7:bitshuffle");
  EXPECT_EQ(c.blosc_cname, "zstd");
  EXPECT_EQ(c.level, 7);
  EXPECT_EQ(c.blosc_shuffle, "bitshuffle");
  auto s = c.v3_codecs(8);
  EXPECT_EQ(s[0].configuration["typesize"], 8);
  EXPECT_EQ(s[0].configuration["shuffle"], "bitshuffle");
  EXPECT_EQ(c.v2_compressor()["shuffle"], 2);
  auto d = parse_codec_option("blosc");
  EXPECT_EQ(d.blosc_cname, "lz4");
  EXPECT_EQ(d.level, 5);
  EXPECT_EQ(d.blosc_shuffle, "shuffle");
}

TEST(CodecOption, NoneGzipCrc) {
  auto n = parse_codec_option("none");
  EXPECT_TRUE(n.v3_codecs(4).empty());
  EXPECT_TRUE(n.v2_compressor().is_null());
  auto g = parse_codec_option("gzip:6+crc32c");
  auto s = g.v3_codecs(4);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "gzip");
  EXPECT_EQ(s[0].configuration["level"], 6);
  EXPECT_EQ(s[1].name, "crc32c");
  EXPECT_THROW(g.v2_compressor(), UsageError);
}

TEST(CodecOption, Rejects) {
  for (const char* bad : {"", "lzma", "zstd:x", "zstd:1:2", "gzip:10", "blosc:snappy", "blosc:lz4:5:twice",
                          "none:1", "blosc:lz4:11"})
    EXPECT_THROW(parse_codec_option(bad), UsageError) << bad;
}

TEST(ChunkOption, Positional) {
  auto o = parse_chunk_option("1,721,full", "--chunks");
  EXPECT_FALSE(o.is_named());
  std::vector<std::uint64_t> shape{10, 721, 1440}, def{5, 5, 5};
  std::vector<std::string> names{"time", "lat", "lon"};
  EXPECT_EQ(resolve_chunk_option(o, shape, names, def, "--chunks", "a"), (std::vector<std::uint64_t>{1, 721, 1440}));
  std::vector<std::uint64_t> shape2{10, 20};
  EXPECT_THROW(resolve_chunk_option(o, shape2, names, def, "--chunks", "a"), UsageError);
  EXPECT_EQ(resolve_chunk_option(o, shape2, names, def, "--chunks", "a", false), def);
}

TEST(ChunkOption, Named) {
  auto o = parse_chunk_option("time=1,lat=721", "--chunks");
  ASSERT_TRUE(o.is_named());
  std::vector<std::uint64_t> shape{10, 721, 1440}, def{5, 6, 7};
  std::vector<std::string> names{"time", "lat", "lon"};
  EXPECT_EQ(resolve_chunk_option(o, shape, names, def, "--chunks", "a"), (std::vector<std::uint64_t>{1, 721, 7}));
  std::vector<std::string> other{"x", "y", "z"};
  try {
    resolve_chunk_option(o, shape, other, def, "--chunks", "air");
    FAIL();
  } catch (const UsageError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'air'"), std::string::npos);
    EXPECT_NE(m.find("'time'"), std::string::npos);
    EXPECT_NE(m.find("x, y, z"), std::string::npos);
  }
  EXPECT_EQ(resolve_chunk_option(o, shape, other, def, "--chunks", "air", false), def);
}

TEST(ChunkOption, Rejects) {
  for (const char* bad : {"", "0,1", "a=1,2", "time=", "=3", "time=1,time=2", "-1", "1,,2"})
    EXPECT_THROW(parse_chunk_option(bad, "--chunks"), UsageError) << bad;
}

TEST(ChunkRules, DataVariablesByDefaultCoordinatesByPath) {
  auto r = parse_chunk_rules("time=1;/time/:time=full;t2m:2,3", "--chunks");
  ASSERT_TRUE(r.general);
  ASSERT_EQ(r.by_path.size(), 2u);
  EXPECT_EQ(r.by_path[0].first, "time");
  const std::vector<std::string> time{"time"}, field{"time", "lat"}, level{"level"};
  bool by_path = false;
  // A 1-D coordinate of a group: only its own spec.
  EXPECT_EQ(r.for_array("time", time, true, &by_path), &r.by_path[0].second);
  EXPECT_TRUE(by_path);
  EXPECT_EQ(r.for_array("t2m", field, true, &by_path), &r.by_path[1].second);
  EXPECT_EQ(r.for_array("sst", field, true, &by_path), &*r.general);
  EXPECT_FALSE(by_path);
  EXPECT_EQ(r.for_array("sub/level", level, true), nullptr);
  // The one array converted alone, or one whose dimension is named otherwise.
  EXPECT_EQ(r.for_array("level", level, false), &*r.general);
  EXPECT_EQ(r.for_array("plev", level, true), &*r.general);
  EXPECT_FALSE(parse_chunk_rules("t2m:time=1", "--chunks").general);
}

TEST(ChunkRules, Rejects) {
  for (const char* bad : {"", "time=1;lat=2", "a:time=1;a:time=2", ":time=1", "time=1;", "a:"})
    EXPECT_THROW(parse_chunk_rules(bad, "--chunks"), UsageError) << bad;
  EXPECT_TRUE(is_dimension_coordinate("g/lat", std::vector<std::string>{"lat"}));
  EXPECT_FALSE(is_dimension_coordinate("lat", std::vector<std::string>{"lat", "lon"}));
}

TEST(ByteSize, Parse) {
  EXPECT_EQ(parse_byte_size("4096"), 4096u);
  EXPECT_EQ(parse_byte_size("2GiB"), 2ull << 30);
  EXPECT_EQ(parse_byte_size("2G"), 2ull << 30);
  EXPECT_EQ(parse_byte_size("512MB"), 512ull << 20);
  EXPECT_EQ(parse_byte_size("1.5k"), 1536u);
  EXPECT_EQ(parse_byte_size("10 B"), 10u);
  EXPECT_EQ(parse_byte_size("x"), std::nullopt);
  EXPECT_EQ(parse_byte_size("5Q"), std::nullopt);
  EXPECT_EQ(parse_byte_size("1.2.3"), std::nullopt);
}

TEST(ByteSize, Format) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(133.0 * 1024 * 1024), "133 MiB");
  EXPECT_EQ(format_duration(65), "1:05");
  EXPECT_EQ(format_duration(3725), "1:02:05");
  EXPECT_EQ(format_duration(-1), "--:--");
}
