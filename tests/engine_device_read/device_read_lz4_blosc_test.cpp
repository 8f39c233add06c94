// Device reads of numcodecs lz4 and Blosc chunks through their GPU decoders
// (lz4_device_decoder.hpp, blosc_device_decoder.hpp), against the host read
// of the same arrays: v2 compressors and v3 codecs, every Blosc inner
// codec the GPU decodes, the three shuffles, several type sizes, frames of
// several blocks and stored (memcpyed) ones, Blosc inside shards; frames
// the GPU does not decode going to CPU threads; corrupt chunks. The arrays
// are written by the test (no corpus needed). GPU only: skips without one.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "engine/device_read/device_read.hpp"
#include "gpu/cuda_buffer.hpp"
#include "gpu/cuda_check.hpp"
#include "zarrgpu/array.hpp"
#include "zarrgpu/config.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct DType {
  const char* v2;  // .zarray dtype
  const char* v3;  // zarr.json data_type
  std::size_t size;
};
constexpr DType kUint8{"|u1", "uint8", 1}, kInt16{"<i2", "int16", 2}, kFloat32{"<f4", "float32", 4},
    kFloat64{"<f8", "float64", 8};

// A compressor as both formats spell it.
struct Compressor {
  json v2;  // .zarray "compressor"
  json v3;  // the bytes->bytes codec of zarr.json
};

Compressor blosc(const std::string& cname, int shuffle, int clevel, std::size_t typesize, std::size_t blocksize) {
  static const char* names[] = {"noshuffle", "shuffle", "bitshuffle"};
  return {{{"id", "blosc"}, {"cname", cname}, {"clevel", clevel}, {"shuffle", shuffle}, {"blocksize", blocksize}},
          {{"name", "blosc"},
           {"configuration",
            {{"cname", cname}, {"clevel", clevel}, {"shuffle", names[shuffle]}, {"typesize", typesize}, {"blocksize", blocksize}}}}};
}

Compressor lz4() {
  return {{{"id", "lz4"}, {"acceleration", 1}}, {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}}};
}

// Smooth values with noise in the low bits, as in ERA5 fields: they compress,
// and shuffling matters.
std::vector<std::byte> sample(std::size_t elements, const DType& t, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> out(elements * t.size);
  for (std::size_t i = 0; i < elements; ++i) {
    const double v = 200 + 40 * std::sin(i * 0.01) + std::cos(i * 0.37) + (rng() % 16) * 0.01;
    std::byte* p = out.data() + i * t.size;
    if (t.size == 1) { const auto x = static_cast<std::uint8_t>(v); std::memcpy(p, &x, 1); }
    if (t.size == 2) { const auto x = static_cast<std::int16_t>(v * 10); std::memcpy(p, &x, 2); }
    if (t.size == 4) { const auto x = static_cast<float>(v); std::memcpy(p, &x, 4); }
    if (t.size == 8) { std::memcpy(p, &v, 8); }
  }
  return out;
}

class DeviceReadLz4Blosc : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
    saved_ = config();
    // These arrays' batches are small: under auto they would decode on CPU
    // threads, so the GPU decoders are forced unless a test says otherwise.
    change([](Config& c) { c.lz4_decoder = c.blosc_decoder = DecoderChoice::gpu; });
    dir_ = fs::temp_directory_path() / ("zarrgpu_lz4_blosc_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
    if (cuda_available()) set_config(saved_);
  }

  static void change(const std::function<void(Config&)>& f) {
    Config c = config();
    f(c);
    set_config(c);
  }

  // Writes the metadata document of array `name` (shape 70 x 100 in chunks of
  // 32 x 48: edge chunks too; `large`: 300 x 500 in chunks of 250 x 390),
  // then its data through the library's encoder (c-blosc, liblz4).
  Array make(const std::string& name, int format, const DType& t, const Compressor& c, bool sharded = false,
             unsigned seed = 1, bool large = false) {
    const std::vector<std::uint64_t> shape = large ? std::vector<std::uint64_t>{300, 500} : std::vector<std::uint64_t>{70, 100};
    const std::vector<std::uint64_t> chunks = large ? std::vector<std::uint64_t>{250, 390} : std::vector<std::uint64_t>{32, 48};
    fs::create_directories(dir_ / name);
    if (format == 2) {
      const json zarray = {{"zarr_format", 2}, {"shape", shape}, {"chunks", chunks}, {"dtype", t.v2},
                           {"compressor", c.v2}, {"fill_value", 0}, {"filters", nullptr}, {"order", "C"}};
      std::ofstream(dir_ / name / ".zarray") << zarray.dump();
    } else {
      const json bytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
      json codecs = json::array({bytes, c.v3});
      if (sharded) {
        codecs = json::array({{{"name", "sharding_indexed"},
                               {"configuration",
                                {{"chunk_shape", {16, 24}},
                                 {"codecs", codecs},
                                 {"index_codecs", json::array({bytes, {{"name", "crc32c"}}})}}}}});
      }
      const json doc = {{"zarr_format", 3},
                        {"node_type", "array"},
                        {"shape", shape},
                        {"data_type", t.v3},
                        {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", chunks}}}}},
                        {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
                        {"fill_value", 0},
                        {"codecs", codecs}};
      std::ofstream(dir_ / name / "zarr.json") << doc.dump();
    }
    Array a = Array::open(open_local_store(dir_.string()), name);
    const auto data = sample(shape[0] * shape[1], t, seed);
    a.write(Selection(), data);
    return Array::open(open_local_store(dir_.string()), name);
  }

  // The device read of the whole array, checked against the host read; its stats.
  static DeviceReadStats expect_device_equals_host(const Array& a) {
    const Bytes host = a.read();
    gpu::DeviceBuffer d(host.size());
    a.read(Selection(), d.data(), host.size(), Device::cuda(0));
    const DeviceReadStats s = last_device_read_stats();
    std::vector<std::byte> got(host.size());
    ZARRGPU_CUDA_CHECK(cudaMemcpy(got.data(), d.data(), got.size(), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::memcmp(got.data(), host.data(), got.size()) == 0) << "device read differs from the host read";
    return s;
  }

  static void expect_all_on_gpu(const DeviceReadStats& s, const std::string& codec) {
    EXPECT_EQ(s.decoder_codec, codec);
    EXPECT_GT(s.chunks, 0u);
    EXPECT_EQ(s.decoder_gpu_chunks, s.chunks - s.missing_chunks) << s.decoder_detail();
    EXPECT_EQ(s.decoder_cpu_chunks, 0u) << s.decoder_detail();
    EXPECT_EQ(s.decoder_returned_chunks, 0u) << s.decoder_detail();
  }

  // A Blosc frame's nbytes and blocksize (c-blosc README_HEADER.rst).
  static std::pair<std::uint32_t, std::uint32_t> blosc_sizes(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    unsigned char h[16] = {};
    in.read(reinterpret_cast<char*>(h), 16);
    auto le32 = [&](int at) { return std::uint32_t(h[at]) | std::uint32_t(h[at + 1]) << 8 | std::uint32_t(h[at + 2]) << 16 | std::uint32_t(h[at + 3]) << 24; };
    return {le32(4), le32(8)};
  }

  static std::string first_chunk_file(const fs::path& array_dir) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(array_dir)) {
      const auto n = e.path().filename().string();
      if (e.is_regular_file() && n != "zarr.json" && n != ".zarray" && n != ".zattrs") files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    return files.empty() ? std::string() : files.front();
  }

  Config saved_;
  fs::path dir_;
};

TEST_F(DeviceReadLz4Blosc, BloscOfEveryGpuCodecShuffleAndTypeSize) {
  const DType types[] = {kUint8, kInt16, kFloat32, kFloat64};
  int n = 0;
  for (const int format : {2, 3})
    for (const char* cname : {"blosclz", "lz4", "lz4hc"})
      for (const int shuffle : {0, 1, 2})
        for (const DType& t : types) {
          // Every other array in frames of several blocks, a leftover block
          // included: larger chunks, and a block size asked for (c-blosc
          // raises it to at least 64 KiB where it splits streams).
          const bool several = n % 2;
          const std::size_t blocksize = several ? 1000 * t.size : 0;
          const std::string name = "b" + std::to_string(n++);
          SCOPED_TRACE(name + ": v" + std::to_string(format) + " " + cname + " shuffle " + std::to_string(shuffle) +
                       " " + t.v3 + " blocksize " + std::to_string(blocksize));
          const Array a = make(name, format, t, blosc(cname, shuffle, 5, t.size, blocksize), false, 1, several);
          if (several) {
            const auto [nbytes, block] = blosc_sizes(first_chunk_file(dir_ / name));
            EXPECT_GT(nbytes, block) << "one block only";
            EXPECT_NE(nbytes % block, 0u) << "no leftover block";
          }
          expect_all_on_gpu(expect_device_equals_host(a), "blosc");
        }
}

TEST_F(DeviceReadLz4Blosc, StoredBloscFramesDecodeOnTheGpu) {
  // clevel 0: c-blosc writes memcpyed frames.
  for (const int format : {2, 3}) {
    SCOPED_TRACE(format);
    const std::string name = "stored" + std::to_string(format);
    const Array a = make(name, format, kFloat32, blosc("lz4", 1, 0, 4, 0));
    std::ifstream in(first_chunk_file(dir_ / name), std::ios::binary);
    char header[3] = {};
    in.read(header, 3);
    EXPECT_NE(header[2] & 0x02, 0) << "not a memcpyed frame";  // flags: BLOSC_MEMCPYED
    expect_all_on_gpu(expect_device_equals_host(a), "blosc");
  }
}

TEST_F(DeviceReadLz4Blosc, BloscInsideShards) {
  const Array a = make("sharded", 3, kFloat32, blosc("lz4", 1, 5, 4, 0), /*sharded=*/true);
  const DeviceReadStats s = expect_device_equals_host(a);
  expect_all_on_gpu(s, "blosc");
}

TEST_F(DeviceReadLz4Blosc, Lz4OfSeveralTypeSizes) {
  int n = 0;
  for (const int format : {2, 3})
    for (const DType& t : {kUint8, kInt16, kFloat32, kFloat64}) {
      const std::string name = "l" + std::to_string(n++);
      SCOPED_TRACE(name + ": v" + std::to_string(format) + " " + t.v3);
      const Array a = make(name, format, t, lz4());
      expect_all_on_gpu(expect_device_equals_host(a), "numcodecs.lz4");
    }
}

// zlib and zstd streams have no GPU decoder: the whole read goes to CPU
// threads whatever blosc_decoder says, and the report says why.
TEST_F(DeviceReadLz4Blosc, BloscOfCpuOnlyCodecsDecodesOnCpuThreads) {
  for (const char* cname : {"zlib", "zstd"}) {
    SCOPED_TRACE(cname);
    const Array a = make(std::string("cpu_") + cname, 2, kFloat32, blosc(cname, 1, 5, 4, 0));
    const DeviceReadStats s = expect_device_equals_host(a);
    EXPECT_EQ(s.decoder_gpu_chunks, 0u);
    EXPECT_EQ(s.decoder_cpu_chunks, s.chunks - s.missing_chunks);
    EXPECT_NE(s.decoder_rule.find(cname), std::string::npos) << s.decoder_rule;
  }
}

// A frame that disagrees with its codec's cname (a zlib frame in an lz4
// array): the GPU decoder hands it back, CPU threads decode it, the read is
// right and says so.
TEST_F(DeviceReadLz4Blosc, AFrameTheGpuCannotDecodeGoesToCpuThreads) {
  const Array a = make("mixed", 2, kFloat32, blosc("lz4", 1, 5, 4, 0));
  const Array z = make("zlib", 2, kFloat32, blosc("zlib", 1, 5, 4, 0), false, /*seed=*/7);
  fs::copy_file(dir_ / "zlib" / "1.1", dir_ / "mixed" / "1.1", fs::copy_options::overwrite_existing);
  const Array mixed = Array::open(open_local_store(dir_.string()), "mixed");
  const DeviceReadStats s = expect_device_equals_host(mixed);
  EXPECT_EQ(s.decoder_returned_chunks, 1u) << s.decoder_detail();
  EXPECT_EQ(s.decoder_gpu_chunks, s.chunks - s.missing_chunks - 1) << s.decoder_detail();
  EXPECT_EQ(s.decoder_cpu_chunks, 1u) << s.decoder_detail();
  EXPECT_NE(s.decoder_returned_why.find("host_only_codec"), std::string::npos) << s.decoder_returned_why;
  EXPECT_NE(s.decoder_detail().find("handed back"), std::string::npos) << s.decoder_detail();
  (void)a;
  (void)z;
}

// Small batches stay on CPU threads under auto (lz4_device_choice.hpp,
// blosc_device_choice.hpp), and the report gives the rule.
TEST_F(DeviceReadLz4Blosc, AutoLeavesSmallBatchesToCpuThreads) {
  change([](Config& c) { c.lz4_decoder = c.blosc_decoder = DecoderChoice::auto_; });
  for (const auto& [name, c] : {std::pair<std::string, Compressor>{"auto_blosc", blosc("lz4", 1, 5, 4, 0)},
                                std::pair<std::string, Compressor>{"auto_lz4", lz4()}}) {
    SCOPED_TRACE(name);
    const DeviceReadStats s = expect_device_equals_host(make(name, 2, kFloat32, c));
    EXPECT_EQ(s.decoder_gpu_chunks, 0u) << s.decoder_detail();
    EXPECT_EQ(s.decoder_cpu_chunks, s.chunks - s.missing_chunks);
    EXPECT_NE(s.decoder_rule.find("auto"), std::string::npos) << s.decoder_rule;
  }
  change([](Config& c) { c.lz4_decoder = c.blosc_decoder = DecoderChoice::cpu; });
  const DeviceReadStats s = expect_device_equals_host(Array::open(open_local_store(dir_.string()), "auto_blosc"));
  EXPECT_EQ(s.decoder_gpu_chunks, 0u);
  EXPECT_NE(s.decoder_rule.find("blosc_decoder=cpu"), std::string::npos) << s.decoder_rule;
}

// A corrupt chunk: Error(corrupt_data) naming the array, the chunk key and
// the codec, from the GPU decoder and from the CPU one.
TEST_F(DeviceReadLz4Blosc, CorruptChunkIsAnErrorNamingArrayChunkAndCodec) {
  for (const auto& [name, c, keep] : {std::tuple<std::string, Compressor, int>{"bad_blosc", blosc("lz4", 1, 5, 4, 0), 16},
                                      std::tuple<std::string, Compressor, int>{"bad_lz4", lz4(), 4}}) {
    SCOPED_TRACE(name);
    make(name, 2, kFloat32, c);
    const std::string victim = first_chunk_file(dir_ / name);
    ASSERT_FALSE(victim.empty());
    {
      std::fstream f(victim, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(0, std::ios::end);
      const auto size = static_cast<std::streamoff>(f.tellp());
      for (std::streamoff at = keep + 8; at < size; at += 5) {  // keep the header, garble the streams
        f.seekp(at);
        f.put(static_cast<char>(0xa5));
      }
    }
    const Array a = Array::open(open_local_store(dir_.string()), name);
    const std::size_t bytes = 70 * 100 * 4;
    const std::string codec = name == "bad_lz4" ? "lz4" : "blosc";
    for (const DecoderChoice side : {DecoderChoice::gpu, DecoderChoice::cpu}) {
      change([&](Config& cf) { cf.lz4_decoder = cf.blosc_decoder = side; });
      gpu::DeviceBuffer d(bytes);
      try {
        a.read(Selection(), d.data(), bytes, Device::cuda(0));
        ADD_FAILURE() << "a corrupt chunk read as complete (" << to_string(side) << ")";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::corrupt_data) << e.what();
        EXPECT_EQ(e.context().array, name) << e.what();
        EXPECT_TRUE(e.context().chunk_key.ends_with(fs::path(victim).filename().string())) << e.what();
        EXPECT_NE(e.context().codec.find(codec), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(codec), std::string::npos) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace zarrgpu::engine
