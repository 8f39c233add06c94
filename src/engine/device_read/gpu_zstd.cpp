#include "engine/device_read/gpu_zstd.hpp"

#include <algorithm>
#include <limits>

#include "engine/device_read/decoder_choice.hpp"

#include "gpu/cuda_check.hpp"
#include "zarrgpu/error.hpp"

#if __has_include("codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp")
#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"
#define ZARRGPU_DEVICE_READ_GPU_ZSTD 1
#endif

namespace zarrgpu::engine::device_read {

#if defined(ZARRGPU_DEVICE_READ_GPU_ZSTD)
namespace zgpu = zarrgpu::zstd::gpu;
static_assert(sizeof(zgpu::Status) == sizeof(std::uint32_t));
// The read path sends batches of large frames to the GPU whatever their
// number because the decoder splits such frames into blocks.
static_assert(kLargeFrameBytes >= zgpu::kBlockParallelMinChunkBytes);

bool GpuZstd::available() { return true; }

namespace {
zgpu::DecompressOptions options(std::size_t max_decoded_bytes, std::size_t temp_budget, const GpuZstd::Needs& needs) {
  zgpu::DecompressOptions o;
  o.chunk_needs_known = needs.known;
  o.chunk_needs = {needs.literal_bytes, needs.sequences};
  o.max_uncompressed_chunk_bytes = max_decoded_bytes;
  o.wave_temp_bytes = temp_budget;
  // The read keeps several batches in flight, each on its stream: their
  // kernels overlap already, and the decoder's weight classes (a second
  // stream per batch) cost the 8 GB read 2.2% (32.42 -> 31.71 GB/s, medians
  // of 9 runs alternating, H200, 2026-11-22 20:49 UTC).
  o.weight_classes = false;
  return o;
}
}  // namespace

GpuZstd::Needs GpuZstd::measure(const std::byte* src, std::size_t size, std::size_t max_decoded_bytes) {
  const zgpu::ChunkNeeds n = zgpu::measure_chunk_needs(src, size, max_decoded_bytes);
  return {true, n.literal_bytes, n.sequences};
}

std::size_t GpuZstd::temp_bytes(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t temp_budget,
                                const Needs& needs) {
  std::size_t t = 0;
  const int r = zgpu::get_decompress_temp_size(chunks, max_decoded_bytes, options(max_decoded_bytes, temp_budget, needs), &t);
  if (r != zgpu::kSuccess) ZARRGPU_CUDA_CHECK(static_cast<cudaError_t>(r));
  return t;
}

bool GpuZstd::whole_batch_fits(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t temp_budget) {
  // The temp a wave of all of them takes, against what the budget allows.
  return temp_bytes(chunks, max_decoded_bytes, std::numeric_limits<std::size_t>::max(), {}) ==
         temp_bytes(chunks, max_decoded_bytes, temp_budget, {});
}

void GpuZstd::decompress(const void* const* in_ptrs, const std::size_t* in_sizes, void* const* out_ptrs,
                         const std::size_t* out_capacities, std::size_t* out_sizes, std::uint32_t* statuses,
                         std::size_t n, std::size_t max_decoded_bytes, std::size_t temp_budget, void* temp,
                         std::size_t temp_bytes, const Needs& needs, bool verify_checksum, cudaStream_t stream) {
  zgpu::DecompressOptions o = options(max_decoded_bytes, temp_budget, needs);
  o.verify_checksum = verify_checksum;
  const int r = zgpu::decompress_async(in_ptrs, in_sizes, out_ptrs, out_capacities, out_sizes,
                                       reinterpret_cast<zgpu::Status*>(statuses), n, temp, temp_bytes, o, stream);
  if (r != zgpu::kSuccess) ZARRGPU_CUDA_CHECK(static_cast<cudaError_t>(r));
}

std::string GpuZstd::status_name(std::uint32_t status) {
  return zgpu::status_name(static_cast<zgpu::Status>(status));
}
#else
bool GpuZstd::available() { return false; }
GpuZstd::Needs GpuZstd::measure(const std::byte*, std::size_t, std::size_t) { return {}; }
std::size_t GpuZstd::temp_bytes(std::size_t, std::size_t, std::size_t, const Needs&) { return 0; }
bool GpuZstd::whole_batch_fits(std::size_t, std::size_t, std::size_t) { return true; }
void GpuZstd::decompress(const void* const*, const std::size_t*, void* const*, const std::size_t*, std::size_t*,
                         std::uint32_t*, std::size_t, std::size_t, std::size_t, void*, std::size_t, const Needs&, bool,
                         cudaStream_t) {
  throw Error(ErrorKind::internal, "GPU zstd decoder not built");
}
std::string GpuZstd::status_name(std::uint32_t status) { return "status " + std::to_string(status); }
#endif

void GpuZstd::Needs::add(const Needs& chunk) {
  known = known && chunk.known;
  literal_bytes = std::max(literal_bytes, chunk.literal_bytes);
  sequences = std::max(sequences, chunk.sequences);
}

}  // namespace zarrgpu::engine::device_read
