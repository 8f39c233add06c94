#include "engine/device_read/device_read.hpp"

#include <chrono>

#include "engine/plan.hpp"
#include "zarrgpu/config.hpp"
#include "zarrgpu/error.hpp"

#if defined(ZARRGPU_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "engine/device_read/pipeline.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/stream.hpp"
#endif

namespace zarrgpu::engine {
namespace {
thread_local DeviceReadStats g_last;

// What `call` needs before anything else: a cuda device, and a build with CUDA.
void require_cuda(const char* call, Device device, const ErrorContext& where) {
  if (device.kind != Device::Kind::cuda) {
    throw Error(ErrorKind::invalid_argument, std::string(call) + " needs a cuda device, got " + device.to_string(), where);
  }
#if !defined(ZARRGPU_HAVE_CUDA)
  throw Error(ErrorKind::unsupported, "this zarrgpu was built without CUDA (ZARRGPU_CUDA=OFF)", where);
#endif
}

#if defined(ZARRGPU_HAVE_CUDA)
// A CUDA device of this machine, or the error that says why not.
void check_cuda_device(Device device, const ErrorContext& where) {
  try {
    require_cuda_device(device);
  } catch (const Error& e) {
    throw e.with_context(where);
  }
}
#endif
}  // namespace

DeviceReadStats last_device_read_stats() { return g_last; }

std::string DeviceReadStats::decoder_detail() const {
  if (decoder_codec.empty()) return "";
  std::string s = decoder_codec + ": " + std::to_string(decoder_gpu_chunks) + " chunks on the GPU, " +
                  std::to_string(decoder_cpu_chunks) + " on CPU threads (" + decoder_rule + ")";
  if (decoder_returned_chunks)
    s += "; " + std::to_string(decoder_returned_chunks) +
         " handed back by the GPU decoder to CPU threads (" + decoder_returned_why + ")";
  return s;
}

void release_device_read_buffers() {
#if defined(ZARRGPU_HAVE_CUDA)
  device_read::release_pipeline_resources();
#endif
}

}  // namespace zarrgpu::engine

namespace zarrgpu {

void release_device_memory() { engine::release_device_read_buffers(); }

}  // namespace zarrgpu

namespace zarrgpu::engine {

void prepare_device_read(Device device) {
  const ErrorContext where{};
  require_cuda("prepare_device_read", device, where);
#if defined(ZARRGPU_HAVE_CUDA)
  check_cuda_device(device, where);
  gpu::DeviceScope scope(device.index);
  device_read::prepare_pipeline_resources(device.index);
#endif
}

void read_to_device(const Array& array, const Selection& selection, void* out, std::size_t out_bytes, Device device,
                    const ReadOptions& options, DeviceReadStats* stats_out) {
  const ErrorContext where{array.path(), "", "", array.store()->describe()};
  require_cuda("read_to_device", device, where);
#if !defined(ZARRGPU_HAVE_CUDA)
  (void)selection; (void)out; (void)out_bytes; (void)options; (void)stats_out;
#else
  const auto t0 = std::chrono::steady_clock::now();
  DeviceReadStats stats;
  g_last = stats;
  const ArrayMetadata& m = array.metadata();
  Plan plan(m, array.path(), selection.resolve(m.shape));
  const std::size_t es = plan.element_size();
  const std::uint64_t expected = plan.out_elements() * es;
  if (out_bytes != expected) {
    throw Error(ErrorKind::invalid_argument,
                "output has " + std::to_string(out_bytes) + " bytes, the selection needs " + std::to_string(expected), where);
  }
  if (expected == 0) return;
  if (!out) throw Error(ErrorKind::invalid_argument, "output pointer is null", where);
  if (reinterpret_cast<std::uintptr_t>(out) % es != 0) {
    throw Error(ErrorKind::invalid_argument, "output is not aligned to the element size (" + std::to_string(es) + ")", where);
  }
  check_cuda_device(device, where);
  cudaPointerAttributes attr{};
  ZARRGPU_CUDA_CHECK(cudaPointerGetAttributes(&attr, out));
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged) {
    throw Error(ErrorKind::invalid_argument, "output is not device memory", where);
  }
  if (attr.type == cudaMemoryTypeDevice && attr.device != device.index) {
    throw Error(ErrorKind::invalid_argument,
                "output lives on cuda:" + std::to_string(attr.device) + ", the read targets " + device.to_string(), where);
  }
  stats.bytes_out = expected;
  {
    gpu::DeviceScope scope(device.index);
    device_read::run_pipeline(array, plan, static_cast<std::byte*>(out), device.index, options, stats);
  }
  // The read's buffers went back to the pool when its pipeline ended.
  if (!config().keep_device_buffers) release_device_read_buffers();
  stats.seconds_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  g_last = stats;
  if (stats_out) *stats_out = stats;
#endif
}

}  // namespace zarrgpu::engine
