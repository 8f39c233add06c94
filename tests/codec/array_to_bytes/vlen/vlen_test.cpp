// vlen-utf8 / vlen-bytes: numcodecs' layout (u32 count, then u32 length +
// bytes per item), byte for byte against chunks numcodecs 0.16 wrote, and
// corrupt chunks rejected with the codec named and no unbounded allocation.
#include "codec/array_to_bytes/vlen/vlen_codec.hpp"

#include <limits>

#include "codec/codec_fixtures.hpp"
#include "metadata/metadata_test_support.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;
using zarrgpu::testing::throws_error;

std::vector<std::byte> raw(std::string_view s) {
  std::vector<std::byte> v(s.size());
  std::memcpy(v.data(), s.data(), s.size());
  return v;
}

ChunkRepresentation repr(DataType t, std::uint64_t n) { return {{n}, t, FillValue{}}; }

TEST(VariableLengthCodec, MatchesNumcodecsLayout) {
  const VariableLengthCodec utf8(spec_of(R"({"name":"vlen-utf8","configuration":{}})"), repr(DataType::string, 3));
  // numcodecs.VLenUTF8().encode(np.array(["a", "", "h\u00e9llo"], dtype=object))
  const auto want = raw(std::string("\x03\0\0\0\x01\0\0\0a\0\0\0\0\x06\0\0\0h\xc3\xa9llo", 23));
  const std::vector<std::string> items{"a", "", "h\xc3\xa9llo"};
  const Bytes got = utf8.encode_items(items);
  EXPECT_TRUE(same(got.span(), want));
  EXPECT_EQ(utf8.decode_items(want, 3), items);
  EXPECT_EQ(utf8.spec().name, "vlen-utf8");

  const VariableLengthCodec bytes(spec_of(R"({"name":"vlen-bytes"})"), repr(DataType::bytes, 2));
  const std::vector<std::string> binary{std::string("\xff\0", 2), ""};
  EXPECT_EQ(bytes.decode_items(bytes.encode_items(binary).span(), 2), binary);
}

TEST(VariableLengthCodec, ChecksItsDataTypeAndConfiguration) {
  EXPECT_TRUE(throws_error([] { VariableLengthCodec(spec_of(R"({"name":"vlen-utf8"})"), repr(DataType::bytes, 1)); },
                           ErrorKind::invalid_metadata, {"vlen-utf8", "string"}));
  EXPECT_TRUE(throws_error([] { VariableLengthCodec(spec_of(R"({"name":"vlen-bytes"})"), repr(DataType::int32, 1)); },
                           ErrorKind::invalid_metadata, {"vlen-bytes"}));
  EXPECT_TRUE(throws_error(
      [] { VariableLengthCodec(spec_of(R"({"name":"vlen-utf8","configuration":{"x":1}})"), repr(DataType::string, 1)); },
      ErrorKind::invalid_metadata, {"takes no configuration"}));
}

TEST(VariableLengthCodec, CorruptChunksAreRejected) {
  const VariableLengthCodec c(spec_of(R"({"name":"vlen-utf8"})"), repr(DataType::string, 2));
  const auto good = c.encode_items(std::vector<std::string>{"ab", "c"});
  const std::span<const std::byte> g = good.span();
  struct Case { std::vector<std::byte> bytes; std::uint64_t count; const char* why; };
  std::vector<std::byte> huge_count(good.data(), good.data() + good.size());
  const std::uint32_t many = std::numeric_limits<std::uint32_t>::max();
  std::memcpy(huge_count.data(), &many, 4);
  std::vector<std::byte> huge_item(good.data(), good.data() + good.size());
  std::memcpy(huge_item.data() + 4, &many, 4);
  std::vector<std::byte> trailing(good.data(), good.data() + good.size());
  trailing.push_back(std::byte{0});
  const Case cases[] = {
      {{}, 2, "shorter than the 4-byte item count"},
      {std::vector<std::byte>(g.begin(), g.end() - 1), 2, "runs past the chunk"},
      {std::vector<std::byte>(g.begin(), g.end()), 3, "holds 2 items, the chunk shape has 3"},
      {huge_count, many, "cannot hold"},  // no 4-billion-item allocation
      {huge_item, 2, "runs past the chunk"},
      {trailing, 2, "follow the last item"},
  };
  for (const auto& k : cases)
    EXPECT_TRUE(throws_error([&] { c.decode_items(k.bytes, k.count); }, ErrorKind::corrupt_data, {"vlen-utf8", k.why}))
        << k.why;
}

}  // namespace
}  // namespace zarrgpu::codec
