#include "codec/array_to_array/transpose/transpose_codec.hpp"

#include <numeric>

#include "codec/codec_fixtures.hpp"

namespace zarrgpu::codec {
namespace {

using namespace testing;

// Reference: element at decoded index d goes to encoded index e with e[k] = d[order[k]].
template <class T>
std::vector<T> reference_encode(const std::vector<T>& in, const std::vector<std::uint64_t>& shape,
                                const std::vector<std::size_t>& order) {
  const std::size_t n = shape.size();
  std::vector<std::uint64_t> eshape(n);
  for (std::size_t k = 0; k < n; ++k) eshape[k] = shape[order[k]];
  std::vector<T> out(in.size());
  std::vector<std::uint64_t> d(n, 0);
  for (std::size_t flat = 0; flat < in.size(); ++flat) {
    std::size_t rest = flat;
    for (std::size_t k = n; k-- > 0;) { d[k] = rest % shape[k]; rest /= shape[k]; }
    std::size_t e = 0;
    for (std::size_t k = 0; k < n; ++k) e = e * eshape[k] + d[order[k]];
    out[e] = in[flat];
  }
  return out;
}

template <class T>
void check(const std::vector<std::uint64_t>& shape, std::vector<std::size_t> order, DataType t) {
  std::uint64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<T> in(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto* p = reinterpret_cast<unsigned char*>(&in[i]);
    for (std::size_t b = 0; b < sizeof(T); ++b) p[b] = static_cast<unsigned char>((i * sizeof(T) + b) * 7 + 1);
  }
  json o = order;
  CodecSpec spec{"transpose", {{"order", o}}};
  const ChunkRepresentation r{shape, t, {}};
  auto c = make<ArrayToArrayCodec>(spec, r);
  std::vector<std::byte> enc(n * sizeof(T)), dec(n * sizeof(T));
  c->encode(as_bytes(in), enc, r);
  EXPECT_TRUE(same(enc, as_bytes(reference_encode(in, shape, order)))) << o.dump();
  c->decode(enc, dec, r);
  EXPECT_TRUE(same(dec, as_bytes(in))) << o.dump();
}

struct Cplx { double re, im; };
struct Three { unsigned char b[3]; };

TEST(Transpose, EveryPermutationOfFourAxes) {
  std::vector<std::size_t> order = {0, 1, 2, 3};
  do {
    check<std::uint8_t>({2, 3, 4, 5}, order, DataType::uint8);
    check<std::uint32_t>({3, 1, 4, 2}, order, DataType::float32);
    check<Cplx>({2, 3, 2, 3}, order, DataType::complex128);
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(Transpose, TwoDimensionalTilesAndOddSizes) {
  check<std::uint16_t>({67, 45}, {1, 0}, DataType::int16);
  check<std::uint64_t>({1, 45}, {1, 0}, DataType::float64);
  check<std::uint64_t>({130, 33}, {1, 0}, DataType::float64);
  check<std::uint8_t>({5}, {0}, DataType::uint8);
}

TEST(Transpose, SpecAndValidation) {
  const ChunkRepresentation r{{2, 3, 4}, DataType::int32, {}};
  auto c = make<TransposeCodec>(spec_of(R"({"name":"transpose","configuration":{"order":[2,0,1]}})"), r);
  EXPECT_EQ(c->encoded_representation(r).shape, (std::vector<std::uint64_t>{4, 2, 3}));
  EXPECT_EQ(c->spec().configuration["order"], json::parse("[2,0,1]"));
  auto f = make<TransposeCodec>(spec_of(R"({"name":"transpose","configuration":{"order":"F"}})"), r);
  EXPECT_EQ(f->order(), (std::vector<std::size_t>{2, 1, 0}));
  for (const char* bad : {R"({"name":"transpose","configuration":{"order":[0,1]}})",
                          R"({"name":"transpose","configuration":{"order":[0,1,1]}})",
                          R"({"name":"transpose","configuration":{"order":[0,1,3]}})",
                          R"({"name":"transpose","configuration":{"order":[0,1,-2]}})",
                          R"({"name":"transpose","configuration":{}})"})
    expect_codec_error([&] { make_codec(spec_of(bad), r); }, ErrorKind::invalid_metadata, "transpose");
}

}  // namespace
}  // namespace zarrgpu::codec
