// The buffers, streams and events of one device read, kept in a process-wide
// pool between reads (pinning hundreds of MiB costs more than a small read).
// A read leases one set; concurrent reads get separate sets. The pool is
// freed by release_pooled_resources (release_device_read_buffers), and at
// exit, before the CUDA runtime tears its context down.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codec/device_decoder.hpp"
#include "gpu/cuda_buffer.hpp"
#include "gpu/staging_config.hpp"
#include "gpu/staging_ring.hpp"
#include "gpu/stream.hpp"

namespace zarrgpu::engine::device_read {

// Per slot of the ring: what batch k (k % slots == slot) uses on the device.
struct SlotResources {
  gpu::Stream stream;
  gpu::Event start{true}, copied{true}, decoded{true}, placed{true};  // timing; `placed` ends the batch
  gpu::DeviceBuffer device;   // [copy of the pinned prefix | GDS reads | decode scratch]
  gpu::DeviceBuffer temp;     // the batched decoder's temp
  gpu::PinnedBuffer results;  // the decoder's sizes and statuses, copied back
  bool pending = false;       // a batch was enqueued and not yet retired
};

struct PipelineResources {
  PipelineResources(int device, const gpu::StagingConfig& config);
  int device;
  gpu::StagingConfig config;
  gpu::StagingRing ring;
  std::vector<std::unique_ptr<SlotResources>> slots;
};

// A leased set; returned to the pool on destruction after its streams finish
// (ignoring errors: a failed read must not hand on buffers still in use).
class ResourceLease {
 public:
  ResourceLease(int device, const gpu::StagingConfig& config);
  ~ResourceLease();
  ResourceLease(const ResourceLease&) = delete;
  ResourceLease& operator=(const ResourceLease&) = delete;
  PipelineResources& operator*() const noexcept { return *r_; }
  PipelineResources* operator->() const noexcept { return r_.get(); }

 private:
  std::unique_ptr<PipelineResources> r_;
};

void release_pooled_resources();

}  // namespace zarrgpu::engine::device_read
