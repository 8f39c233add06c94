#include "codec/array_to_bytes/sharding_indexed/sharding_indexed_codec.hpp"

#include <cstring>

#include "codec/bytes_to_bytes/crc32c/crc32c.hpp"
#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

CodecSpec sharding(const std::string& chunk_shape, const std::string& location,
                   const std::string& codecs = R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}])") {
  return spec_of((R"({"name":"sharding_indexed","configuration":{"chunk_shape":)" + chunk_shape +
                  R"(,"codecs":)" + codecs +
                  R"(,"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":")" +
                  location + R"("}})").c_str());
}

std::vector<std::int32_t> iota_with_holes(std::size_t n, std::size_t rows, std::size_t cols) {
  std::vector<std::int32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int32_t>(i + 1);
  // Zero out the top-left 4x4 inner chunk so it is left out.
  for (std::size_t r = 0; r < 4 && r < rows; ++r)
    for (std::size_t c = 0; c < 4 && c < cols; ++c) v[r * cols + c] = 0;
  return v;
}

TEST(ShardingIndexed, RoundTripAtStartAndEndWithMissingChunks) {
  for (const char* location : {"start", "end"}) {
    SCOPED_TRACE(location);
    const ChunkRepresentation r{{8, 12}, DataType::int32, FillValue::of(std::int32_t{0})};
    auto c = make<ShardingIndexedCodec>(sharding("[4,4]", location), r);
    EXPECT_EQ(c->chunks_per_shard(), (std::vector<std::uint64_t>{2, 3}));
    EXPECT_EQ(c->encoded_index_size(), 6u * 16u + 4u);
    const auto v = iota_with_holes(96, 8, 12);
    const Bytes shard = c->encode(as_bytes(v), r);
    ASSERT_FALSE(shard.empty());
    const ShardIndex index = c->decode_index(shard);
    ASSERT_EQ(index.size(), 6u);
    EXPECT_TRUE(index.is_missing(0));
    for (std::size_t i = 1; i < 6; ++i) EXPECT_FALSE(index.is_missing(i));
    if (std::string(location) == "start") EXPECT_EQ(index.offset(1), c->encoded_index_size());
    else EXPECT_EQ(index.offset(1), 0u);
    std::vector<std::byte> out(r.nbytes());
    c->decode(shard, out, r);
    EXPECT_TRUE(same(out, as_bytes(v)));
    // Partial read: one inner chunk through the inner chain.
    std::vector<std::int32_t> inner(16);
    c->inner_chain().decode(std::span(shard.data() + index.offset(4), index.nbytes(4)),
                            std::as_writable_bytes(std::span(inner)));
    EXPECT_EQ(inner[0], 4 * 12 + 4 + 1);
  }
}

TEST(ShardingIndexed, AllFillEncodesToNothingAndMissingDecodesToFill) {
  const ChunkRepresentation r{{4, 4}, DataType::float32, FillValue::of(-1.5f)};
  auto c = make<ShardingIndexedCodec>(sharding("[2,2]", "end"), r);
  std::vector<float> fill(16, -1.5f);
  EXPECT_TRUE(c->encode(as_bytes(fill), r).empty());
  // A shard whose index says every chunk is missing.
  std::vector<std::uint64_t> entries(8, ShardIndex::missing);
  std::vector<std::byte> shard = as_bytes(entries);
  const std::uint32_t crc = crc32c(shard);
  shard.resize(shard.size() + 4);
  std::memcpy(shard.data() + 64, &crc, 4);
  std::vector<std::byte> out(r.nbytes());
  c->decode(shard, out, r);
  EXPECT_TRUE(same(out, as_bytes(fill)));
}

TEST(ShardingIndexed, NestedShardsAndNonContiguousInnerChunks) {
  const std::string inner = R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[2,3],"codecs":[{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}])";
  const ChunkRepresentation r{{8, 12}, DataType::int32, FillValue::of(std::int32_t{0})};
  auto c = make<ShardingIndexedCodec>(sharding("[4,6]", "end", inner), r);
  const auto v = iota_with_holes(96, 8, 12);
  const Bytes shard = c->encode(as_bytes(v), r);
  std::vector<std::byte> out(r.nbytes());
  c->decode(shard, out, r);
  EXPECT_TRUE(same(out, as_bytes(v)));
  // spec() writes the nested chain back.
  EXPECT_EQ(c->spec().configuration["codecs"][0]["configuration"]["chunk_shape"], json::parse("[2,3]"));
}

TEST(ShardingIndexed, CorruptShardsNameTheCodec) {
  const ChunkRepresentation r{{8, 12}, DataType::int32, FillValue::of(std::int32_t{0})};
  auto c = make<ShardingIndexedCodec>(sharding("[4,4]", "end"), r);
  const auto v = iota_with_holes(96, 8, 12);
  const Bytes good = c->encode(as_bytes(v), r);
  std::vector<std::byte> out(r.nbytes());
  std::vector<std::byte> shard(good.data(), good.data() + good.size());

  // Too short for the index.
  expect_codec_error([&] { c->decode(std::span(shard).first(50), out, r); }, ErrorKind::corrupt_data, "sharding_indexed");
  // A bad index checksum.
  auto bad = shard;
  bad[bad.size() - 1] ^= std::byte{1};
  expect_codec_error([&] { c->decode(bad, out, r); }, ErrorKind::corrupt_data, "crc32c");
  // An entry pointing outside the shard (crc recomputed so only the bounds check catches it).
  auto rewrite = [&](std::size_t entry, std::uint64_t value) {
    auto b = shard;
    const std::size_t index_at = b.size() - c->encoded_index_size();
    std::memcpy(b.data() + index_at + entry * 8, &value, 8);
    const std::uint32_t crc = crc32c(std::span(b).subspan(index_at, c->encoded_index_size() - 4));
    std::memcpy(b.data() + b.size() - 4, &crc, 4);
    return b;
  };
  expect_codec_error([&] { c->decode(rewrite(2, shard.size()), out, r); }, ErrorKind::corrupt_data, "sharding_indexed");
  expect_codec_error([&] { c->decode(rewrite(3, ~std::uint64_t{0} - 1), out, r); }, ErrorKind::corrupt_data, "sharding_indexed");
  expect_codec_error([&] { c->decode(rewrite(2, ShardIndex::missing), out, r); }, ErrorKind::corrupt_data, "sharding_indexed");
  // An inner chunk of the wrong size: the inner codec reports it.
  auto b = rewrite(3, 5);
  expect_codec_error([&] { c->decode(b, out, r); }, ErrorKind::corrupt_data, "zstd");
  try {
    c->decode(b, out, r);
  } catch (const Error& e) {
    EXPECT_NE(e.cause().find("inner chunk [0, 4]"), std::string::npos) << e.what();
  }
}

TEST(ShardingIndexed, Validation) {
  const ChunkRepresentation r{{8, 12}, DataType::int32, {}};
  expect_codec_error([&] { make_codec(sharding("[3,4]", "end"), r); }, ErrorKind::invalid_metadata, "sharding_indexed");
  expect_codec_error([&] { make_codec(sharding("[4]", "end"), r); }, ErrorKind::invalid_metadata, "sharding_indexed");
  expect_codec_error([&] { make_codec(sharding("[0,4]", "end"), r); }, ErrorKind::invalid_metadata, "sharding_indexed");
  expect_codec_error([&] { make_codec(sharding("[4,4]", "middle"), r); }, ErrorKind::invalid_metadata, "sharding_indexed");
  expect_codec_error([&] { make_codec(sharding("[4,4]", "end", R"([{"name":"zstd"}])"), r); }, ErrorKind::invalid_metadata, "zstd");
  expect_codec_error([&] { make_codec(spec_of(R"({"name":"sharding_indexed","configuration":{"chunk_shape":[4,4],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd"}]}})"), r); },
                     ErrorKind::unsupported, "sharding_indexed");
}

}  // namespace
}  // namespace zarrgpu::codec
