// decode_zstd_on_device (engine/chunk_batch.hpp): a batch of zstd frames
// already in device memory (zarr-python's GPU buffers) decoded by zarrgpu's
// batched GPU decoder straight into the caller's device buffers. Built with
// CUDA only; chunk_batch.cpp has the refusal of builds without it.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "engine/chunk_batch.hpp"
#include "codec/bytes_to_bytes/zstd/zstd_device_decoder.hpp"
#include "gpu/cuda_buffer.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/stream.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine {

namespace {
// The decoder's block-parallel scratch may grow to this before it decodes a
// batch in several waves: the read path's default (6 x 512 MiB of scratch).
constexpr std::size_t kTempBudget = std::size_t{3} << 30;

// Buffers kept between calls, per device: a pipeline decodes batch after batch,
// and cudaMalloc/cudaFree of the decoder's temp (up to kTempBudget) each time
// would cost more than small batches take to decode. One call at a time uses
// them (the mutex); each call waits for its work before it returns.
struct Buffers {
  gpu::PinnedBuffer host;
  gpu::DeviceBuffer table;
  gpu::DeviceBuffer temp;
};
std::mutex buffers_mutex;
std::map<int, Buffers>& buffers_by_device() {
  static auto* m = new std::map<int, Buffers>;  // never destroyed: no cudaFree after CUDA's own teardown
  return *m;
}
}  // namespace

void decode_zstd_on_device(int device, std::span<const void* const> in_ptrs, std::span<const std::size_t> in_sizes,
                           std::span<void* const> out_ptrs, std::span<const std::size_t> out_sizes,
                           std::span<const std::string> keys, std::uintptr_t stream) {
  const std::size_t n = in_ptrs.size();
  if (in_sizes.size() != n || out_ptrs.size() != n || out_sizes.size() != n || (!keys.empty() && keys.size() != n))
    throw Error(ErrorKind::invalid_argument, "decode_zstd_on_device: the lists differ in length");
  if (n == 0) return;
  const codec::BatchedDeviceDecoder& decoder = codec::zstd_device_decoder();
  gpu::DeviceScope scope(device);
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  const std::size_t max_decoded = *std::max_element(out_sizes.begin(), out_sizes.end());

  // One descriptor block (in pointers, in sizes, out pointers, out capacities),
  // then the decoder's results (out sizes, statuses), all 8-byte aligned.
  const std::size_t table = n * sizeof(std::uint64_t);
  const std::size_t results = 4 * table;
  const std::size_t bytes = results + table + n * sizeof(std::uint32_t);
  const std::lock_guard lock(buffers_mutex);
  Buffers& b = buffers_by_device()[device];
  b.host.reserve(bytes);
  b.table.reserve(bytes);
  gpu::PinnedBuffer& host = b.host;
  gpu::DeviceBuffer& dev = b.table;
  std::memcpy(host.data(), in_ptrs.data(), table);
  std::memcpy(host.data() + table, in_sizes.data(), table);
  std::memcpy(host.data() + 2 * table, out_ptrs.data(), table);
  std::memcpy(host.data() + 3 * table, out_sizes.data(), table);
  ZARRGPU_CUDA_CHECK(cudaMemcpyAsync(dev.data(), host.data(), results, cudaMemcpyHostToDevice, s));
  // The frames are in device memory already: their scratch needs are not measured on the
  // host, so the decoder lays out the worst case of the chunk size.
  const codec::DeviceChunkNeeds needs{};
  const std::size_t temp_bytes = decoder.temp_bytes(n, max_decoded, kTempBudget, needs);
  b.temp.reserve(std::max<std::size_t>(temp_bytes, 1));
  gpu::DeviceBuffer& temp = b.temp;
  codec::DeviceBatch batch;
  batch.in_ptrs = dev.as<const void* const>();
  batch.in_sizes = reinterpret_cast<const std::size_t*>(dev.data() + table);
  batch.out_ptrs = reinterpret_cast<void* const*>(dev.data() + 2 * table);
  batch.out_capacities = reinterpret_cast<const std::size_t*>(dev.data() + 3 * table);
  batch.out_sizes = reinterpret_cast<std::size_t*>(dev.data() + results);
  batch.statuses = reinterpret_cast<std::uint32_t*>(dev.data() + results + table);
  batch.chunks = n;
  batch.max_decoded_bytes = max_decoded;
  batch.temp_budget = kTempBudget;
  batch.needs = needs;
  batch.verify_checksum = true;
  decoder.decode_async(batch, temp.data(), temp_bytes, s);
  ZARRGPU_CUDA_CHECK(cudaMemcpyAsync(host.data() + results, dev.data() + results, bytes - results,
                                     cudaMemcpyDeviceToHost, s));
  ZARRGPU_CUDA_CHECK(cudaStreamSynchronize(s));
  const auto* sizes = reinterpret_cast<const std::uint64_t*>(host.data() + results);
  const auto* statuses = reinterpret_cast<const std::uint32_t*>(host.data() + results + table);
  for (std::size_t i = 0; i < n; ++i) {
    ErrorContext where{"", i < keys.size() ? keys[i] : "chunk " + std::to_string(i) + " of the batch", "zstd", ""};
    if (statuses[i] != 0)
      throw Error(ErrorKind::corrupt_data, "GPU zstd decoding failed: " + decoder.status_name(statuses[i]),
                  where);
    if (sizes[i] != out_sizes[i])
      throw Error(ErrorKind::corrupt_data,
                  "the frame decodes to " + std::to_string(sizes[i]) + " bytes; the chunk has " +
                      std::to_string(out_sizes[i]),
                  where);
  }
}

}  // namespace zarrgpu::engine
