// The device path against the CPU path and the corpus' SHA-256 digests. GPU
// only (skips without a device).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <fstream>
#include <random>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "engine/device_read/device_read.hpp"
#include "corpus/sha256.hpp"
#include "gpu/cuda_buffer.hpp"
#include "gpu/stream.hpp"
#include "zarrgpu/array.hpp"
#include "zarrgpu/config.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() {
  const char* env = std::getenv("ZARRGPU_CORPUS_DIR");
  return env && *env ? fs::path(env) : fs::path(ZARRGPU_CORPUS_DIR);
}

struct CorpusArray {
  std::string name, store, path, sha256;
};

std::vector<CorpusArray> corpus_arrays() {
  std::vector<CorpusArray> out;
  for (const char* f : {"expected_v2_s1.json", "expected_v3_s11.json"}) {
    std::ifstream in(corpus_dir() / f);
    if (!in) continue;
    const auto doc = nlohmann::json::parse(in);
    for (const auto& [name, e] : doc.items())
      out.push_back({name, e["store"].get<std::string>(), e["array"].get<std::string>(), e["sha256"].get<std::string>()});
  }
  return out;
}

std::vector<std::byte> read_on_device(const Array& a, const Selection& sel, std::size_t bytes, cudaStream_t stream = nullptr) {
  gpu::DeviceBuffer d(std::max<std::size_t>(bytes, 16));
  ReadOptions o;
  o.cuda_stream = stream;
  a.read(sel, d.data(), bytes, Device::cuda(0), o);
  std::vector<std::byte> host(bytes);
  if (bytes) ZARRGPU_CUDA_CHECK(cudaMemcpy(host.data(), d.data(), bytes, cudaMemcpyDeviceToHost));
  return host;
}

class DeviceRead : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
    if (corpus_arrays().empty()) GTEST_SKIP() << "no corpus at " << corpus_dir();
    saved_ = config();
    // The corpus' batches are small: under auto they would all decode on CPU
    // threads, so the GPU decoders (zstd, lz4, blosc) are forced unless a
    // test says otherwise.
    change([](Config& c) { c.zstd_decoder = c.lz4_decoder = c.blosc_decoder = DecoderChoice::gpu; });
  }
  void TearDown() override { set_config(saved_); }
  Config saved_;

  // Changes the settings for this test (TearDown restores them).
  static void change(const std::function<void(Config&)>& f) {
    Config c = config();
    f(c);
    set_config(c);
  }

  void expect_corpus(const std::function<void(const DeviceReadStats&)>& check_stats = {}) {
    for (const CorpusArray& c : corpus_arrays()) {
      SCOPED_TRACE(c.name);
      const Array a = Array::open(open_local_store((corpus_dir() / c.store).string()), c.path);
      const Bytes cpu = a.read();
      const auto gpu = read_on_device(a, Selection(), cpu.size());
      ASSERT_EQ(zarrgpu::testing::sha256_hex(gpu), c.sha256) << last_device_read_stats().io_path;
      EXPECT_EQ(zarrgpu::testing::sha256_hex(cpu.span()), c.sha256);
      const DeviceReadStats s = last_device_read_stats();
      // Every present chunk of a chain with a device decoder is counted once, on one side.
      if (!s.decoder_rule.empty()) EXPECT_EQ(s.decoder_gpu_chunks + s.decoder_cpu_chunks, s.chunks - s.missing_chunks);
      else EXPECT_EQ(s.decoder_gpu_chunks + s.decoder_cpu_chunks, 0u);
      if (check_stats) check_stats(s);
    }
  }
};

TEST_F(DeviceRead, CorpusMatchesExpectedDigests) {
  std::map<std::string, std::uint64_t> on_gpu;  // per decoder codec
  expect_corpus([&](const DeviceReadStats& s) { on_gpu[s.decoder_codec] += s.decoder_gpu_chunks; });
  EXPECT_GT(on_gpu["zstd"], 0u) << "zstd_decoder=gpu decoded no zstd chunk on the GPU";
  // The corpus has v2 and v3 blosc (blosclz, lz4, lz4hc) and v2 lz4 arrays.
  EXPECT_GT(on_gpu["blosc"], 0u) << "blosc_decoder=gpu decoded no blosc chunk on the GPU";
  EXPECT_GT(on_gpu["numcodecs.lz4"], 0u) << "lz4_decoder=gpu decoded no lz4 chunk on the GPU";
}

TEST_F(DeviceRead, CorpusWithCpuDecoders) {
  change([](Config& c) { c.zstd_decoder = c.lz4_decoder = c.blosc_decoder = DecoderChoice::cpu; });
  expect_corpus([](const DeviceReadStats& s) { EXPECT_EQ(s.decoder_gpu_chunks, 0u) << s.decoder_codec; });
}

TEST_F(DeviceRead, CorpusWithAutomaticZstdChoice) {
  change([](Config& c) { c.zstd_decoder = DecoderChoice::auto_; });
  expect_corpus([](const DeviceReadStats& s) {
    if (s.decoder_codec == "zstd") EXPECT_NE(s.decoder_rule.find("auto"), std::string::npos) << s.decoder_rule;
  });
}

TEST_F(DeviceRead, CorpusThroughTinyBatches) {
  // Many batches through every ring slot, chunks larger than a slot included.
  change([](Config& c) { c.staging_bytes = 4 << 10; c.scratch_bytes = 8 << 10; });
  expect_corpus();
}

// Chunk files read in pieces of a few hundred bytes, on their own and in tiny
// batches: each piece lands at its place in the staging ring.
TEST_F(DeviceRead, CorpusThroughPiecesOfReads) {
  change([](Config& c) { c.read_piece_bytes = 300; });
  expect_corpus();
  change([](Config& c) { c.staging_bytes = 4 << 10; c.scratch_bytes = 8 << 10; });
  expect_corpus();
}

std::int64_t pick(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
}

TEST_F(DeviceRead, RandomSelectionsMatchTheCpuPath) {
  std::mt19937_64 rng(2026);
  int tried = 0;
  for (const CorpusArray& c : corpus_arrays()) {
    const Array a = Array::open(open_local_store((corpus_dir() / c.store).string()), c.path);
    const auto shape = a.shape();
    if (shape.empty()) continue;
    for (int t = 0; t < 6; ++t) {
      std::vector<DimSelection> dims;
      for (std::uint64_t n : shape) {
        const auto N = static_cast<std::int64_t>(n);
        const int kind = static_cast<int>(rng() % 4);
        if (kind == 0 && N > 0) {
          dims.push_back(DimSelection::index(pick(rng, -N, N - 1)));
        } else {
          const std::int64_t step = kind == 3 ? -pick(rng, 1, 3) : pick(rng, 1, 3);
          const std::int64_t a0 = pick(rng, 0, N), a1 = pick(rng, 0, N);
          dims.push_back(step > 0 ? DimSelection::slice(std::min(a0, a1), std::max(a0, a1), step)
                                  : DimSelection::slice(std::max(a0, a1), std::min(a0, a1), step));
        }
      }
      const Selection sel(dims);
      SCOPED_TRACE(c.name + " [" + sel.to_string() + "]");
      const Bytes cpu = a.read(sel);
      ASSERT_EQ(read_on_device(a, sel, cpu.size()), std::vector<std::byte>(cpu.data(), cpu.data() + cpu.size()));
      ++tried;
    }
  }
  EXPECT_GT(tried, 50);
}

TEST_F(DeviceRead, OrdersAfterAndBeforeTheCallersStream) {
  const CorpusArray c = corpus_arrays().front();
  const Array a = Array::open(open_local_store((corpus_dir() / c.store).string()), c.path);
  const Bytes cpu = a.read();
  gpu::Stream s;
  const auto gpu = read_on_device(a, Selection(), cpu.size(), s.get());
  EXPECT_EQ(zarrgpu::testing::sha256_hex(gpu), c.sha256);
}

TEST_F(DeviceRead, RejectsBadOutputs) {
  const CorpusArray c = corpus_arrays().front();
  const Array a = Array::open(open_local_store((corpus_dir() / c.store).string()), c.path);
  const Bytes cpu = a.read();
  gpu::DeviceBuffer d(cpu.size() + 16);
  EXPECT_THROW(a.read(Selection(), d.data(), cpu.size() + 1, Device::cuda(0)), Error);
  std::vector<std::byte> host(cpu.size());
  try {
    read_to_device(a, Selection(), host.data(), host.size(), Device::cuda(0), {});
    FAIL() << "read into host memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
}

// prepare_device_read pools the reads' staging before the first read, which
// then reads as any other; a device that is not a GPU of this machine is
// an invalid argument.
TEST_F(DeviceRead, PreparedStagingServesTheFirstRead) {
  release_device_read_buffers();
  prepare_device_read(Device::cuda(0));
  prepare_device_read(Device::cuda(0));  // twice: the pooled set is taken and handed back
  expect_corpus();
  for (const Device bad : {Device::cpu(), Device::cuda(1 << 20), Device::cuda(-1)}) {
    try {
      prepare_device_read(bad);
      FAIL() << "prepared " << bad.to_string();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_argument) << bad.to_string();
    }
  }
}

// A corrupted zstd chunk: the read throws corrupt_data naming the array's
// chunk and the codec, with the GPU decoder and with the CPU one.
TEST_F(DeviceRead, CorruptChunkIsAnError) {
  const fs::path src = corpus_dir() / "v3_zstd1_f4_s11.zarr";
  if (!fs::exists(src)) GTEST_SKIP() << "no " << src;
  const fs::path dst = fs::temp_directory_path() / ("zarrgpu_corrupt_" + std::to_string(::getpid()));
  fs::remove_all(dst);
  fs::copy(src, dst, fs::copy_options::recursive);
  std::string victim;
  for (const auto& e : fs::recursive_directory_iterator(dst)) {
    if (e.is_regular_file() && e.path().filename() != "zarr.json") {
      victim = e.path().string();
      break;
    }
  }
  ASSERT_FALSE(victim.empty());
  {
    std::fstream f(victim, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0, std::ios::end);
    const auto size = static_cast<std::streamoff>(f.tellp());
    for (std::streamoff at = 12; at < size; at += 7) {  // keep the frame header, garble the blocks
      f.seekp(at);
      f.put(static_cast<char>(0xa5));
    }
  }
  const Array a = Array::open(open_local_store(dst.string()));
  const std::uint64_t bytes = a.metadata().num_elements() * size_of(a.dtype());
  for (const DecoderChoice gpu_zstd : {DecoderChoice::gpu, DecoderChoice::cpu}) {
    change([&](Config& c) { c.zstd_decoder = gpu_zstd; });
    gpu::DeviceBuffer d(bytes);
    try {
      a.read(Selection(), d.data(), bytes, Device::cuda(0));
      ADD_FAILURE() << "a corrupt chunk read as complete (zstd_decoder=" << to_string(gpu_zstd) << ")";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::corrupt_data) << e.what();
      EXPECT_FALSE(e.context().chunk_key.empty()) << e.what();
      EXPECT_NE(std::string(e.what()).find("zstd"), std::string::npos) << e.what();
    }
  }
  fs::remove_all(dst);
}

}  // namespace
}  // namespace zarrgpu::engine
