// DeviceArray.__dlpack__ / __dlpack_device__ (DLPack 1.x versioned and legacy
// capsules) and reading the DLPack view of a consumer-owned buffer (out=).
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include <nanobind/nanobind.h>

#include "dlpack.hpp"
#include "device_array.hpp"

namespace zarrgpu::python {

DLDataType to_dl_data_type(DataType t);
DLDevice to_dl_device(const Device& d);

// The Array API standard's __dlpack__(*, stream, max_version, dl_device, copy).
nanobind::object export_dlpack(nanobind::object self, DeviceArray& array, nanobind::object stream,
                               nanobind::object max_version, nanobind::object dl_device,
                               nanobind::object copy);

// What a producer's capsule describes, without consuming it (the caller keeps
// the producer alive while it writes through `data`).
struct DLPackView {
  std::uintptr_t data = 0;  // data + byte_offset
  int device_type = 0;
  int device_id = 0;
  std::vector<std::int64_t> shape;
  std::optional<std::vector<std::int64_t>> strides;  // in elements
  int code = 0, bits = 0, lanes = 0;
  bool read_only = false;
};
DLPackView inspect_dlpack_capsule(nanobind::handle capsule);

void bind_dlpack(nanobind::module_& m);

}  // namespace zarrgpu::python
