// The CUDA part of read_to_device (device_read.hpp describes the stages).
#pragma once

#include <cstddef>

#include "engine/device_read/device_read.hpp"
#include "engine/plan.hpp"

namespace zarrgpu::engine::device_read {

void run_pipeline(const Array& array, const Plan& plan, std::byte* out, int device, const ReadOptions& options,
                  DeviceReadStats& stats);

// Leases, and so pools, a set of PipelineResources for `device` (current).
void prepare_pipeline_resources(int device);
void release_pipeline_resources();

}  // namespace zarrgpu::engine::device_read
