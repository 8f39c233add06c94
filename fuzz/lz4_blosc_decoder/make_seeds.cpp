// Writes the fuzzer's seed corpus: numcodecs lz4 chunks and raw LZ4 blocks
// (liblz4, default and HC), and Blosc chunks (c-blosc: every codec, shuffle
// mode and a few typesizes and block sizes), each with the fuzzer's 3-byte
// prefix (kind, capacity / 8).
//   make_seeds DIR
#include <blosc.h>
#include <lz4.h>
#include <lz4hc.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using Bytes = std::vector<uint8_t>;

static int written = 0;
static void write_seed(const std::string& dir, uint8_t kind, size_t capacity, const Bytes& body) {
  const size_t cap8 = (capacity + 7) / 8;
  Bytes seed = {kind, static_cast<uint8_t>(cap8 & 255), static_cast<uint8_t>((cap8 >> 8) & 255)};
  seed.insert(seed.end(), body.begin(), body.end());
  std::ofstream(dir + "/seed_" + std::to_string(written++), std::ios::binary)
      .write(reinterpret_cast<const char*>(seed.data()), static_cast<std::streamsize>(seed.size()));
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  std::mt19937 rng(1);
  std::vector<Bytes> samples = {Bytes{}, Bytes(1000, 'a'), Bytes(3000), Bytes(4000), Bytes(20000)};
  for (size_t i = 0; i < samples[2].size(); ++i) samples[2][i] = static_cast<uint8_t>(rng());
  for (size_t i = 0; i < samples[3].size(); ++i) samples[3][i] = static_cast<uint8_t>((i / 4) % 61 + (i % 4) * 50);
  const std::string text = "the zarr chunk decodes on a gpu ";
  for (size_t i = 0; i < samples[4].size(); ++i) samples[4][i] = static_cast<uint8_t>(text[i % text.size()] + i / 997);
  for (const Bytes& s : samples) {
    for (const int hc : {0, 9}) {
      Bytes block(static_cast<size_t>(LZ4_compressBound(static_cast<int>(s.size()))));
      const char* in = reinterpret_cast<const char*>(s.data());
      char* out = reinterpret_cast<char*>(block.data());
      const int n = hc ? LZ4_compress_HC(in, out, static_cast<int>(s.size()), static_cast<int>(block.size()), hc)
                       : LZ4_compress_default(in, out, static_cast<int>(s.size()), static_cast<int>(block.size()));
      if (n <= 0) continue;
      block.resize(static_cast<size_t>(n));
      Bytes frame = {static_cast<uint8_t>(s.size()), static_cast<uint8_t>(s.size() >> 8),
                     static_cast<uint8_t>(s.size() >> 16), static_cast<uint8_t>(s.size() >> 24)};
      frame.insert(frame.end(), block.begin(), block.end());
      write_seed(dir, 0, s.size(), frame);
      write_seed(dir, 1, s.size(), block);
    }
    for (const char* cname : {"blosclz", "lz4", "lz4hc", "zstd", "zlib"})
      for (const int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE})
        for (const size_t typesize : {size_t{1}, size_t{4}, size_t{8}}) {
          Bytes chunk(s.size() + BLOSC_MAX_OVERHEAD);
          const int n = blosc_compress_ctx(5, shuffle, typesize, s.size(), s.data(), chunk.data(), chunk.size(), cname,
                                           typesize == 4 ? 1024 : 0, 1);
          if (n <= 0) continue;
          chunk.resize(static_cast<size_t>(n));
          write_seed(dir, 2, s.size(), chunk);
        }
  }
  std::printf("wrote %d seeds to %s\n", written, dir.c_str());
  return 0;
}
