// Reading the reference encodings of tests/codec/fixtures (made by
// make_fixtures.py with numcodecs) and small helpers shared by codec tests.
#pragma once

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codec/codec.hpp"
#include "zarrgpu/data_type.hpp"

namespace zarrgpu::codec::testing {

inline std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  if (!c.empty()) std::memcpy(b.data(), c.data(), c.size());
  return b;
}

inline std::string fixture_dir() { return std::string(ZARRGPU_SOURCE_DIR) + "/tests/codec/fixtures/"; }

struct Fixture {
  std::string name;
  CodecSpec spec;
  ChunkRepresentation repr;
  bool encode_exact = false;
  std::vector<std::byte> raw, enc;
};

// Every case whose codec name is one of `names`.
inline std::vector<Fixture> fixtures(std::initializer_list<std::string_view> names) {
  std::ifstream f(fixture_dir() + "manifest.json");
  const json manifest = json::parse(f);
  std::vector<Fixture> out;
  for (const json& c : manifest) {
    const std::string codec = c["codec"]["name"].get<std::string>();
    if (std::find(names.begin(), names.end(), codec) == names.end()) continue;
    Fixture x;
    x.name = c["name"].get<std::string>();
    x.spec = codec_spec_from_json(c["codec"]);
    Endian e;
    x.repr.data_type = *from_numpy_str(c["dtype"].get<std::string>(), &e);
    x.repr.shape = c["shape"].get<std::vector<std::uint64_t>>();
    x.encode_exact = c["encode_exact"].get<bool>();
    x.raw = read_file(fixture_dir() + x.name + ".raw");
    x.enc = read_file(fixture_dir() + x.name + ".enc");
    out.push_back(std::move(x));
  }
  return out;
}

template <class T>
std::unique_ptr<T> make(const CodecSpec& spec, const ChunkRepresentation& repr) {
  std::unique_ptr<Codec> c = make_codec(spec, repr);
  T* t = dynamic_cast<T*>(c.get());
  EXPECT_NE(t, nullptr) << spec.name;
  c.release();
  return std::unique_ptr<T>(t);
}

inline CodecSpec spec_of(const char* json_text) { return codec_spec_from_json(json::parse(json_text)); }

inline std::span<const std::byte> bytes_of(const std::vector<std::byte>& v) { return v; }

template <class T>
std::vector<std::byte> as_bytes(const std::vector<T>& v) {
  std::vector<std::byte> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

inline bool same(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

// Expects `f` to throw an Error of `kind` whose context names `codec`.
template <class F>
void expect_codec_error(F&& f, ErrorKind kind, std::string_view codec) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << to_string(kind) << " from " << codec;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(e.context().codec, codec) << e.what();
  }
}

// A bytes -> bytes fixture: f.enc decodes to f.raw with the size known, with
// it unknown and into a buffer; f.raw encodes to f.enc (numcodecs' bytes) and
// decodes back.
inline void expect_matches_numcodecs(const BytesToBytesCodec& c, const Fixture& f) {
  SCOPED_TRACE(f.name);
  EXPECT_TRUE(same(c.decode(f.enc, f.raw.size()), f.raw));
  EXPECT_TRUE(same(c.decode(f.enc, 0), f.raw));
  std::vector<std::byte> out(f.raw.size());
  c.decode_into(f.enc, out);
  EXPECT_TRUE(same(out, f.raw));
  const Bytes e = c.encode(f.raw);
  EXPECT_TRUE(same(e, f.enc)) << "encode differs from numcodecs";
  EXPECT_TRUE(same(c.decode(e, f.raw.size()), f.raw));
}

}  // namespace zarrgpu::codec::testing
