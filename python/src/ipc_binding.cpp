// zarrgpu._zarrgpu's IPC classes (zarrgpu/ipc.py wraps them): shareable memory,
// descriptors, and DLPack views of imported memory (src/ipc, docs/ipc.md).
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "ipc/dlpack_type.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/ipc.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {
namespace {

using ipc::Descriptor;
using ipc::SharedMemory;

DataType data_type_named(const std::string& name) {
  auto t = from_v3_name(name);
  if (!t || !is_numeric(*t)) throw Error(ErrorKind::invalid_argument, "cannot share data type \"" + name + "\" (numeric types only)");
  return *t;
}

// A DLPack view of `d` over `memory`, which `owner` (the Python SharedMemory) keeps alive.
nb::object view(const SharedMemory& memory, nb::handle owner, const std::string& text) {
  const Descriptor d = ipc::parse_descriptor(text);
  if (d.allocation_size > memory.size())
    throw Error(ErrorKind::invalid_argument, "IPC descriptor: allocation_size exceeds the memory it is viewed over");
  const auto item = static_cast<std::int64_t>(size_of(d.data_type));
  std::vector<std::size_t> shape(d.shape.begin(), d.shape.end());
  std::vector<std::int64_t> strides;
  for (auto s : d.strides) strides.push_back(s / item);
  const ipc::DLPackType t = ipc::dlpack_type(d.data_type);
  const nb::dlpack::dtype dtype{static_cast<std::uint8_t>(t.code), static_cast<std::uint8_t>(t.bits), static_cast<std::uint16_t>(t.lanes)};
  const bool host = memory.device().kind == Device::Kind::cpu;
  const int device_type = host ? nb::device::cpu::value : nb::device::cuda::value;
  const int device_id = host ? 0 : memory.device().index;
  auto* data = static_cast<std::byte*>(memory.data()) + (memory.data() ? d.byte_offset : 0);
  if (d.read_only || !memory.writable())
    return nb::cast(nb::ndarray<nb::array_api, nb::ro>(data, shape.size(), shape.data(), owner, strides.data(), dtype, device_type, device_id));
  return nb::cast(nb::ndarray<nb::array_api>(data, shape.size(), shape.data(), owner, strides.data(), dtype, device_type, device_id));
}

}  // namespace

void bind_ipc(nb::module_& m) {
  m.def("ipc_validate", [](const std::string& text) { return ipc::to_json(ipc::parse_descriptor(text)); },
        "Parses and validates a descriptor; returns it as this zarrgpu writes it.");
  m.def("ipc_descriptor_version", [] { return ipc::kDescriptorVersion; });
  m.def("ipc_export_device_pointer",
        [](std::uintptr_t ptr, const std::string& dtype, std::vector<std::uint64_t> shape, std::vector<std::int64_t> strides,
           int device, std::uintptr_t stream) {
          return ipc::to_json(ipc::export_device_pointer(reinterpret_cast<const void*>(ptr), data_type_named(dtype),
                                                         std::move(shape), std::move(strides), Device::cuda(device),
                                                         reinterpret_cast<void*>(stream)));
        },
        nb::arg("ptr"), nb::arg("dtype"), nb::arg("shape"), nb::arg("strides"), nb::arg("device"), nb::arg("stream") = 0);
  m.def("cuda_device_uuid", [](int device) { return ipc::device_uuid(Device::cuda(device)); });

  nb::class_<SharedMemory>(m, "SharedMemory")
      .def_static("create_host", [](std::size_t bytes) { return SharedMemory::create_host(bytes); }, nb::arg("nbytes"))
      .def_static("create_device", [](std::size_t bytes, int device, bool vmm) {
            return SharedMemory::create_device(bytes, Device::cuda(device), vmm); },
          nb::arg("nbytes"), nb::arg("device"), nb::arg("vmm"))
      .def_static("open", [](const std::string& text, int fd) {
            nb::gil_scoped_release release;  // may wait on the exporter's event
            return SharedMemory::open(ipc::parse_descriptor(text), fd); },
          nb::arg("descriptor"), nb::arg("fd") = -1)
      .def_prop_ro("ptr", [](const SharedMemory& s) { return reinterpret_cast<std::uintptr_t>(s.data()); })
      .def_prop_ro("nbytes", &SharedMemory::size)
      .def_prop_ro("fd", &SharedMemory::fd)
      .def_prop_ro("writable", &SharedMemory::writable)
      .def_prop_ro("device", [](const SharedMemory& s) { return s.device().to_string(); })
      .def_prop_ro("handle_kind", [](const SharedMemory& s) { return std::string(ipc::handle_kind_name(s.handle_kind())); })
      .def("reopen_read_only", &SharedMemory::reopen_read_only)
      .def("read", [](const SharedMemory& s, std::size_t offset, std::size_t n) {
            std::string out(n, '\0');
            { nb::gil_scoped_release release; s.copy_out(offset, out.data(), n); }
            return nb::bytes(out.data(), out.size()); },
          nb::arg("offset"), nb::arg("nbytes"), "A host copy of nbytes at offset.")
      .def("write", [](const SharedMemory& s, std::size_t offset, nb::bytes data) {
            s.copy_in(offset, data.c_str(), data.size()); },
          nb::arg("offset"), nb::arg("data"), "Copies host bytes into the memory at offset.")
      .def("describe",
           [](const SharedMemory& s, const std::string& dtype, std::vector<std::uint64_t> shape, std::uint64_t byte_offset,
              std::vector<std::int64_t> strides, bool record_event, std::uintptr_t stream) {
             return ipc::to_json(s.describe(data_type_named(dtype), std::move(shape), byte_offset, std::move(strides),
                                            record_event, reinterpret_cast<void*>(stream)));
           },
           nb::arg("dtype"), nb::arg("shape"), nb::arg("byte_offset") = 0, nb::arg("strides") = std::vector<std::int64_t>{},
           nb::arg("record_event") = false, nb::arg("stream") = 0)
      .def("view", [](nb::handle self, const std::string& text) { return view(nb::cast<const SharedMemory&>(self), self, text); },
           nb::arg("descriptor"), "A DLPack-capable view of the array the descriptor names, over this memory.");
}

}  // namespace zarrgpu::python
