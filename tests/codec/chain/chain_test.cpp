#include "codec/codec.hpp"

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

std::vector<CodecSpec> specs_of(const char* text) {
  std::vector<CodecSpec> s;
  for (const json& j : json::parse(text)) s.push_back(codec_spec_from_json(j));
  return s;
}

TEST(ChunkRepresentation, NumElements) {
  EXPECT_EQ((ChunkRepresentation{{}, DataType::int8, {}}.num_elements()), 1u);
  EXPECT_EQ((ChunkRepresentation{{3, 0}, DataType::int8, {}}.num_elements()), 0u);
  EXPECT_EQ((ChunkRepresentation{{3, 4, 5}, DataType::float64, {}}.nbytes()), 480u);
}

TEST(CodecChain, RoundTripsThroughEveryStage) {
  const char* chains[] = {
      R"([{"name":"bytes","configuration":{"endian":"big"}}])",
      R"([{"name":"transpose","configuration":{"order":[1,0,2]}},{"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd","configuration":{"level":3}},{"name":"crc32c"}])",
      R"([{"name":"transpose","configuration":{"order":[2,1,0]}},{"name":"transpose","configuration":{"order":[1,0,2]}},{"name":"bytes","configuration":{"endian":"little"}},{"name":"numcodecs.shuffle","configuration":{"elementsize":4}},{"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"bitshuffle","typesize":4,"blocksize":0}}])",
      R"([{"name":"numcodecs.delta","configuration":{"dtype":"<i4","astype":"<i4"}},{"name":"bytes","configuration":{"endian":"little"}},{"name":"numcodecs.lz4","configuration":{"acceleration":1}}])",
      R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":5}},{"name":"crc32c"}])",
      R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"numcodecs.zlib","configuration":{"level":1}}])",
      R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[2,3,5],"codecs":[{"name":"transpose","configuration":{"order":[2,0,1]}},{"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd","configuration":{"level":1}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"start"}}])",
  };
  const ChunkRepresentation r{{4, 6, 5}, DataType::int32, FillValue::of(std::int32_t{-1})};
  std::vector<std::int32_t> v(120);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * i - 50);
  for (const char* text : chains) {
    SCOPED_TRACE(text);
    const auto specs = specs_of(text);
    const CodecChain chain = CodecChain::build(specs, r);
    const Bytes stored = chain.encode(as_bytes(v));
    std::vector<std::byte> out(r.nbytes());
    chain.decode(stored, out);
    EXPECT_TRUE(same(out, as_bytes(v)));
    const auto back = chain.specs();
    ASSERT_EQ(back.size(), specs.size());
    for (std::size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i].name, specs[i].name);
    EXPECT_EQ(chain.representations().size(), chain.array_to_array().size() + 1);
  }
}

TEST(CodecChain, EncodedSizeWhenFixed) {
  const ChunkRepresentation r{{4, 4, 2}, DataType::uint64, {}};
  EXPECT_EQ(CodecChain::build(specs_of(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}])"), r).encoded_size(), 260u);
  EXPECT_FALSE(CodecChain::build(specs_of(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd"}])"), r).encoded_size());
}

TEST(CodecChain, ValidatesOrder) {
  const ChunkRepresentation r{{4}, DataType::int32, {}};
  auto fails = [&](const char* text, ErrorKind kind, std::string_view codec) {
    SCOPED_TRACE(text);
    expect_codec_error([&] { CodecChain::build(specs_of(text), r); }, kind, codec);
  };
  fails(R"([{"name":"zstd"}])", ErrorKind::invalid_metadata, "zstd");
  fails(R"([])", ErrorKind::invalid_metadata, "");
  fails(R"([{"name":"transpose","configuration":{"order":[0]}}])", ErrorKind::invalid_metadata, "");
  fails(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"bytes","configuration":{"endian":"little"}}])", ErrorKind::invalid_metadata, "bytes");
  fails(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"transpose","configuration":{"order":[0]}}])", ErrorKind::invalid_metadata, "transpose");
  fails(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"lzma"}])", ErrorKind::unsupported, "lzma");
  fails(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"lzma","must_understand":false}])", ErrorKind::unsupported, "lzma");
}

TEST(CodecChain, DecodeErrorsNameTheCodec) {
  const ChunkRepresentation r{{16}, DataType::int32, {}};
  const CodecChain chain = CodecChain::build(
      specs_of(R"([{"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd","configuration":{"level":1}},{"name":"crc32c"}])"), r);
  std::vector<std::int32_t> v(16, 7);
  const Bytes stored = chain.encode(as_bytes(v));
  std::vector<std::byte> bad(stored.data(), stored.data() + stored.size()), out(64);
  bad[5] ^= std::byte{1};
  expect_codec_error([&] { chain.decode(bad, out); }, ErrorKind::corrupt_data, "crc32c");
  // Valid checksum over a truncated zstd frame.
  const CodecChain no_crc = CodecChain::build(
      specs_of(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}])"), r);
  const Bytes z = no_crc.encode(as_bytes(v));
  expect_codec_error([&] { no_crc.decode(std::span(z.data(), z.size() - 3), out); }, ErrorKind::corrupt_data, "zstd");
}

}  // namespace
}  // namespace zarrgpu::codec
