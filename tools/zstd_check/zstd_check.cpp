// zarrgpu-zstd-check [--sniff] [--host] DIR
//
// Decodes every .zst file under DIR (with --sniff: every file that starts
// with a Zstandard or skippable-frame magic number) with zarrgpu's decoder
// and compares the bytes with libzstd's. The GPU decodes all files in one
// batch when the CUDA path was built and a device is present (--host forces
// the CPU build of the same code). Prints one line per file and a summary;
// the exit code is 1 on any mismatch, 2 on usage errors.
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "codec/bytes_to_bytes/zstd/decoder/decode_frames.hpp"
#if defined(ZARRGPU_HAVE_CUDA)
#include <cuda_runtime.h>

#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"
#endif

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using zarrgpu::zstd::Status;

namespace {

struct Item {
  std::string path;
  Bytes src;
  Bytes ref;          // libzstd's output
  bool ref_ok = false;
  std::string ref_error;
  Bytes ours;
  Status status = Status::ok;
  double seconds = 0;  // host mode: this file's decode time
};

bool read_file(const fs::path& p, Bytes* out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

bool looks_like_zstd(const Bytes& b) {
  if (b.size() < 4) return false;
  uint32_t m;
  std::memcpy(&m, b.data(), 4);
  return m == 0xFD2FB528u || (m & 0xFFFFFFF0u) == 0x184D2A50u;
}

// Streaming decode: works for frames without a content size too.
void reference(Item& it) {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 31);
  ZSTD_inBuffer in{it.src.data(), it.src.size(), 0};
  Bytes out(std::max<size_t>(1 << 16, it.src.size() * 4));
  size_t pos = 0;
  size_t r = 0;
  for (;;) {
    if (pos == out.size()) out.resize(out.size() * 2);
    ZSTD_outBuffer o{out.data(), out.size(), pos};
    r = ZSTD_decompressStream(d, &o, &in);
    pos = o.pos;
    if (ZSTD_isError(r)) break;
    // r == 0: the frame is decoded and flushed; with no input left, done. This
    // must come first: a frame that fills the buffer exactly (1 MiB of zeros
    // after 64 KiB doubled four times) would otherwise take one more call,
    // which, with no input, asks for the next frame's header (r > 0) and was
    // reported as a truncated frame.
    if (r == 0 && in.pos == in.size) break;
    if (in.pos == in.size && o.pos < o.size) break;  // wants more input, yet had room: truncated
  }
  ZSTD_freeDCtx(d);
  if (ZSTD_isError(r)) {
    it.ref_error = ZSTD_getErrorName(r);
  } else if (r != 0) {
    it.ref_error = "truncated frame";
  } else {
    it.ref_ok = true;
  }
  out.resize(pos);
  it.ref = std::move(out);
}

#if defined(ZARRGPU_HAVE_CUDA)
// One batch for all files; returns the kernel time in seconds, or < 0 on a CUDA error.
double decode_on_gpu(std::vector<Item>& items) {
  namespace zg = zarrgpu::zstd::gpu;
  const size_t n = items.size();
  size_t in_total = 0, out_total = 0;
  std::vector<size_t> in_off(n), out_off(n), caps(n);
  for (size_t i = 0; i < n; ++i) {
    in_off[i] = in_total;
    in_total += items[i].src.size();
    out_off[i] = out_total;
    caps[i] = items[i].ref.size();  // the capacity a Zarr reader knows: the chunk size
    out_total += caps[i];
  }
  uint8_t *d_in = nullptr, *d_out = nullptr;
  void* d_meta = nullptr;
  const size_t meta_bytes = n * (2 * sizeof(void*) + 3 * sizeof(size_t) + sizeof(Status));
  if (cudaMalloc(&d_in, in_total + 1) || cudaMalloc(&d_out, out_total + 1) || cudaMalloc(&d_meta, meta_bytes)) {
    return -1;
  }
  std::vector<uint8_t> meta(meta_bytes);
  auto** in_ptrs = reinterpret_cast<const void**>(meta.data());
  auto** out_ptrs = reinterpret_cast<void**>(meta.data() + n * sizeof(void*));
  auto* in_sizes = reinterpret_cast<size_t*>(meta.data() + 2 * n * sizeof(void*));
  auto* out_caps = in_sizes + n;
  for (size_t i = 0; i < n; ++i) {
    cudaMemcpy(d_in + in_off[i], items[i].src.data(), items[i].src.size(), cudaMemcpyHostToDevice);
    in_ptrs[i] = d_in + in_off[i];
    out_ptrs[i] = d_out + out_off[i];
    in_sizes[i] = items[i].src.size();
    out_caps[i] = caps[i];
  }
  cudaMemcpy(d_meta, meta.data(), meta_bytes, cudaMemcpyHostToDevice);
  auto* base = static_cast<uint8_t*>(d_meta);
  auto* d_in_ptrs = reinterpret_cast<const void* const*>(base);
  auto* d_out_ptrs = reinterpret_cast<void* const*>(base + n * sizeof(void*));
  auto* d_in_sizes = reinterpret_cast<const size_t*>(base + 2 * n * sizeof(void*));
  auto* d_caps = d_in_sizes + n;
  auto* d_sizes = const_cast<size_t*>(d_caps + n);
  auto* d_status = reinterpret_cast<Status*>(d_sizes + n);
  size_t temp = 0;
  zg::get_decompress_temp_size(n, 0, &temp);
  void* d_temp = nullptr;
  cudaMalloc(&d_temp, temp + 1);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  const int rc = zg::decompress_async(d_in_ptrs, d_in_sizes, d_out_ptrs, d_caps, d_sizes, d_status, n, d_temp, temp,
                                      {}, nullptr);
  cudaEventRecord(e1);
  if (rc != 0 || cudaEventSynchronize(e1) != cudaSuccess) return -1;
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  std::vector<size_t> sizes(n);
  std::vector<Status> statuses(n);
  cudaMemcpy(sizes.data(), d_sizes, n * sizeof(size_t), cudaMemcpyDeviceToHost);
  cudaMemcpy(statuses.data(), d_status, n * sizeof(Status), cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < n; ++i) {
    items[i].status = statuses[i];
    items[i].ours.resize(sizes[i]);
    cudaMemcpy(items[i].ours.data(), d_out + out_off[i], sizes[i], cudaMemcpyDeviceToHost);
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_meta);
  cudaFree(d_temp);
  return ms / 1e3;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  bool sniff = false, host_only = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sniff") sniff = true;
    else if (a == "--host") host_only = true;
    else if (a == "-h" || a == "--help") dir.clear(), argc = 0;
    else dir = a;
  }
  if (dir.empty() || !fs::is_directory(dir)) {
    std::fprintf(stderr, "usage: zarrgpu-zstd-check [--sniff] [--host] DIR\n");
    return 2;
  }
  std::vector<Item> items;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const bool named = e.path().extension() == ".zst";
    if (!named && !sniff) continue;
    Item it;
    it.path = e.path().string();
    if (!read_file(e.path(), &it.src)) continue;
    if (!named && !looks_like_zstd(it.src)) continue;
    reference(it);
    items.push_back(std::move(it));
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.path < b.path; });
  if (items.empty()) {
    std::printf("no Zstandard files under %s\n", dir.c_str());
    return 0;
  }

  std::string mode = "host (CPU build of the GPU decoder)";
  double gpu_seconds = -1;
#if defined(ZARRGPU_HAVE_CUDA)
  if (!host_only && zarrgpu::zstd::gpu::device_available()) {
    gpu_seconds = decode_on_gpu(items);
    if (gpu_seconds < 0) {
      std::printf("CUDA error; falling back to the host decoder\n");
    } else {
      mode = "GPU, one batch";
    }
  }
#endif
  if (gpu_seconds < 0) {
    for (Item& it : items) {
      it.ours.assign(it.ref.size(), 0);
      size_t n = 0;
      const auto t0 = std::chrono::steady_clock::now();
      it.status = zarrgpu::zstd::decode_frames(it.src.data(), it.src.size(), it.ours.data(), it.ours.size(), &n);
      it.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      it.ours.resize(it.status == Status::ok ? n : 0);
    }
  }

  size_t ok = 0, mismatch = 0, both_rejected = 0, bytes = 0;
  double host_seconds = 0;
  for (const Item& it : items) {
    const bool ours_ok = it.status == Status::ok;
    const char* verdict;
    if (it.ref_ok && ours_ok && it.ours == it.ref) {
      verdict = "ok";
      ++ok;
      bytes += it.ref.size();
    } else if (!it.ref_ok && !ours_ok) {
      verdict = "rejected (both)";
      ++both_rejected;
    } else {
      verdict = "MISMATCH";
      ++mismatch;
    }
    host_seconds += it.seconds;
    std::printf("%-16s %-22s %10zu -> %10zu bytes", verdict, zarrgpu::zstd::status_name(it.status), it.src.size(),
                it.ref.size());
    if (gpu_seconds < 0 && it.seconds > 0) std::printf("  %8.3f GB/s", it.ref.size() / it.seconds / 1e9);
    if (!it.ref_ok) std::printf("  libzstd: %s", it.ref_error.c_str());
    std::printf("  %s\n", it.path.c_str());
  }
  const double secs = gpu_seconds >= 0 ? gpu_seconds : host_seconds;
  std::printf("\n%zu files: %zu ok, %zu rejected by both, %zu mismatches; decoder: %s; %.3f GB decoded in %.3f ms",
              items.size(), ok, both_rejected, mismatch, mode.c_str(), bytes / 1e9, secs * 1e3);
  if (secs > 0) std::printf(" (%.2f GB/s)", bytes / secs / 1e9);
  std::printf("\n");
  return mismatch ? 1 : 0;
}
