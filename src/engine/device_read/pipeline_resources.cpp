#include "engine/device_read/pipeline_resources.hpp"

#include <cstdlib>
#include <mutex>

#include "engine/device_read/device_read.hpp"

namespace zarrgpu::engine::device_read {
namespace {

std::mutex g_mutex;
// Heap-held and never destroyed by a static destructor: those run in no
// order we control against the CUDA runtime's own teardown, and freeing after
// it fails (compute-sanitizer: cuMemFree errors, the pooled sets reported as
// leaks). Instead the pool is emptied by an atexit handler registered on the
// first lease, which comes after the read's first CUDA runtime call; atexit
// handlers run in reverse order of registration, so ours runs while the
// context is still alive.
std::vector<std::unique_ptr<PipelineResources>>& pool() {
  static auto* p = new std::vector<std::unique_ptr<PipelineResources>>();
  return *p;
}

void release_at_exit() {
  static std::once_flag once;
  std::call_once(once, [] { std::atexit([] { release_pooled_resources(); }); });
}

bool same(const gpu::StagingConfig& a, const gpu::StagingConfig& b) {
  return a.slot_bytes == b.slot_bytes && a.slots == b.slots && a.scratch_bytes == b.scratch_bytes &&
         a.temp_bytes == b.temp_bytes;
}

}  // namespace

PipelineResources::PipelineResources(int d, const gpu::StagingConfig& c) : device(d), config(c), ring(c) {
  for (unsigned i = 0; i < ring.size(); ++i) slots.push_back(std::make_unique<SlotResources>());
}

ResourceLease::ResourceLease(int device, const gpu::StagingConfig& config) {
  release_at_exit();
  {
    std::lock_guard lock(g_mutex);
    auto& p = pool();
    for (auto it = p.begin(); it != p.end(); ++it) {
      if ((*it)->device == device && same((*it)->config, config)) {
        r_ = std::move(*it);
        p.erase(it);
        return;
      }
    }
  }
  r_ = std::make_unique<PipelineResources>(device, config);
}

ResourceLease::~ResourceLease() {
  if (!r_) return;
  bool clean = true;
  for (auto& s : r_->slots) {
    if (cudaStreamSynchronize(s->stream.get()) != cudaSuccess) clean = false;
    s->pending = false;
  }
  try {
    r_->ring.drain();
  } catch (...) {
    clean = false;
  }
  if (!clean) {
    cudaGetLastError();
    return;  // a broken set is freed, not pooled
  }
  std::lock_guard lock(g_mutex);
  pool().push_back(std::move(r_));
}

void release_pooled_resources() {
  std::vector<std::unique_ptr<PipelineResources>> doomed;
  {
    std::lock_guard lock(g_mutex);
    doomed.swap(pool());
  }
}

}  // namespace zarrgpu::engine::device_read
