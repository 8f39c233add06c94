// Filling and keeping ReadReports (zarrgpu/read_report.hpp): the host read
// fills its own (read.cpp); a device read's comes from its DeviceReadStats.
#pragma once

#include "engine/array_state.hpp"
#include "engine/device_read/device_read.hpp"
#include "zarrgpu/read_report.hpp"

namespace zarrgpu::engine {

// The report of a device read of an array with `state`'s codecs, from its
// statistics. Per codec: on the GPU or CPU threads as the device chain's
// classification puts it (device_chain.hpp), zstd's bytes-to-bytes codecs
// split by where each batch's zstd frames ran.
ReadReport device_read_report(const DeviceReadStats& stats, const ArrayState& state, Device device);

// Sets the report's store fields: `store`'s kind and its activity since `before`.
void add_store_activity(ReadReport& report, const Store& store, const StoreActivity& before);

// Keeps `report` as this thread's last_read_report() and copies it to
// options.report when set.
void publish_read_report(const ReadReport& report, const ReadOptions& options);

}  // namespace zarrgpu::engine
