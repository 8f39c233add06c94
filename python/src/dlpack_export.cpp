#include "dlpack_export.hpp"

#include <cstring>
#include <memory>
#include <string>

#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>

#include "zarrgpu/error.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {

DLDataType to_dl_data_type(DataType t) {
  const auto bits = static_cast<std::uint8_t>(size_of(t) * 8);
  std::uint8_t code = kDLFloat;
  if (t == DataType::bool_) code = kDLBool;
  else if (t == DataType::bfloat16) code = kDLBfloat;
  else if (is_complex(t)) code = kDLComplex;
  else if (is_signed_int(t)) code = kDLInt;
  else if (is_unsigned_int(t)) code = kDLUInt;
  return DLDataType{code, bits, 1};
}

DLDevice to_dl_device(const Device& d) {
  if (d.kind == Device::Kind::cuda) return DLDevice{kDLCUDA, d.index};
  return DLDevice{kDLCPU, 0};
}

namespace {

// Owns what a capsule's tensor points into: a reference to the allocation (so
// the DeviceArray may die first) and the shape array.
struct ExportContext {
  std::shared_ptr<DeviceAllocation> memory;
  std::vector<std::int64_t> shape;
  DLManagedTensorVersioned versioned{};
  DLManagedTensor legacy{};
};

void delete_versioned(DLManagedTensorVersioned* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
}
void delete_legacy(DLManagedTensor* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
}

// A capsule that no consumer took (still named "dltensor[_versioned]") frees
// its tensor; a consumed one ("used_...") belongs to the consumer's deleter call.
void versioned_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kDLTensorVersionedCapsule)) return;
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kDLTensorVersionedCapsule));
  if (t && t->deleter) t->deleter(t);
  PyErr_Restore(type, value, traceback);
}
void legacy_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kDLTensorCapsule)) return;
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kDLTensorCapsule));
  if (t && t->deleter) t->deleter(t);
  PyErr_Restore(type, value, traceback);
}

DLTensor describe(ExportContext& ctx, const DeviceArray& a) {
  DLTensor t{};
  t.data = a.data();
  t.device = to_dl_device(a.device());
  t.ndim = static_cast<std::int32_t>(ctx.shape.size());
  t.dtype = to_dl_data_type(a.dtype);
  t.shape = ctx.shape.empty() ? nullptr : ctx.shape.data();
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 0;
  return t;
}

}  // namespace

nb::object export_dlpack(nb::object /*self*/, DeviceArray& a, nb::object stream, nb::object max_version,
                         nb::object dl_device, nb::object copy) {
  const DLDevice ours = to_dl_device(a.device());
  if (!dl_device.is_none()) {
    auto requested = nb::cast<nb::tuple>(dl_device);
    if (requested.size() != 2 || nb::cast<int>(requested[0]) != static_cast<int>(ours.device_type) ||
        nb::cast<int>(requested[1]) != ours.device_id)
      throw nb::buffer_error("__dlpack__: dl_device other than the array's own device would need a copy, "
                             "which zarrgpu does not make; call .get() for a host copy");
  }
  if (!copy.is_none() && nb::cast<bool>(copy))
    throw nb::buffer_error("__dlpack__(copy=True): zarrgpu exports its memory without copying only");

  if (ours.device_type == kDLCUDA) {
    // Array API standard: None = the legacy default stream, -1 = no synchronization,
    // 0 is ambiguous and disallowed, 1 legacy default, 2 per-thread default, else a cudaStream_t.
    if (stream.is_none()) {
      wait_ready(a, cuda_stream_handle(1));
    } else {
      const std::int64_t s = nb::cast<std::int64_t>(stream);
      if (s == 0) throw nb::value_error("__dlpack__: stream=0 is disallowed for CUDA (ambiguous); pass 1 for the legacy default stream");
      if (s != -1) wait_ready(a, cuda_stream_handle(static_cast<std::uintptr_t>(s)));
    }
  }

  bool versioned = false;
  if (!max_version.is_none()) {
    auto mv = nb::cast<nb::tuple>(max_version);
    versioned = mv.size() >= 1 && nb::cast<int>(mv[0]) >= 1;
  }

  auto ctx = std::make_unique<ExportContext>();
  ctx->memory = a.memory;
  ctx->shape = a.shape;
  PyObject* capsule = nullptr;
  if (versioned) {
    ctx->versioned.version = DLPackVersion{ZARRGPU_DLPACK_MAJOR_VERSION, ZARRGPU_DLPACK_MINOR_VERSION};
    ctx->versioned.manager_ctx = ctx.get();
    ctx->versioned.deleter = &delete_versioned;
    ctx->versioned.flags = 0;  // writable, not a copy
    ctx->versioned.dl_tensor = describe(*ctx, a);
    capsule = PyCapsule_New(&ctx->versioned, kDLTensorVersionedCapsule, &versioned_capsule_destructor);
  } else {
    ctx->legacy.manager_ctx = ctx.get();
    ctx->legacy.deleter = &delete_legacy;
    ctx->legacy.dl_tensor = describe(*ctx, a);
    capsule = PyCapsule_New(&ctx->legacy, kDLTensorCapsule, &legacy_capsule_destructor);
  }
  if (!capsule) throw nb::python_error();
  ctx.release();  // owned by the capsule (or its consumer) from here
  return nb::steal(capsule);
}

DLPackView inspect_dlpack_capsule(nb::handle capsule) {
  DLTensor* t = nullptr;
  DLPackView v;
  if (PyCapsule_IsValid(capsule.ptr(), kDLTensorVersionedCapsule)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), kDLTensorVersionedCapsule));
    if (m->version.major > ZARRGPU_DLPACK_MAJOR_VERSION)
      throw nb::buffer_error(("DLPack major version " + std::to_string(m->version.major) + " is newer than this zarrgpu understands").c_str());
    v.read_only = (m->flags & ZARRGPU_DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    t = &m->dl_tensor;
  } else if (PyCapsule_IsValid(capsule.ptr(), kDLTensorCapsule)) {
    t = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kDLTensorCapsule))->dl_tensor;
  } else {
    throw nb::type_error("expected an unconsumed DLPack capsule (\"dltensor\" or \"dltensor_versioned\")");
  }
  v.data = reinterpret_cast<std::uintptr_t>(t->data) + t->byte_offset;
  v.device_type = static_cast<int>(t->device.device_type);
  v.device_id = t->device.device_id;
  v.shape.assign(t->shape, t->shape + t->ndim);
  if (t->strides) v.strides = std::vector<std::int64_t>(t->strides, t->strides + t->ndim);
  v.code = t->dtype.code;
  v.bits = t->dtype.bits;
  v.lanes = t->dtype.lanes;
  return v;
}

void bind_dlpack(nb::module_& m) {
  m.def("_inspect_dlpack", [](nb::handle capsule) {
    DLPackView v = inspect_dlpack_capsule(capsule);
    nb::dict d;
    d["data"] = nb::int_(v.data);
    d["device_type"] = v.device_type;
    d["device_id"] = v.device_id;
    d["shape"] = nb::tuple(nb::cast(v.shape));
    d["strides"] = v.strides ? nb::object(nb::tuple(nb::cast(*v.strides))) : nb::none();
    d["code"] = v.code;
    d["bits"] = v.bits;
    d["lanes"] = v.lanes;
    d["read_only"] = v.read_only;
    return d;
  }, "The tensor a DLPack capsule describes (pointer, device, shape, strides, dtype); does not consume it.");

  m.def("_copy_device_to_host",
        [](std::uintptr_t device_ptr, nb::ndarray<nb::c_contig, nb::device::cpu> out) {
          const std::size_t bytes = out.nbytes();
          void* host = out.data();
          nb::gil_scoped_release release;
          copy_device_to_host(host, reinterpret_cast<const void*>(device_ptr), bytes);
        },
        nb::arg("device_ptr"), nb::arg("out"),
        "Copies out.nbytes bytes from a device pointer into a C-contiguous host array (synchronous).");

  m.def("_synchronize_stream",
        [](std::uintptr_t stream, int device) {
          nb::gil_scoped_release release;
          synchronize_stream(cuda_stream_handle(stream), device);
        },
        nb::arg("stream"), nb::arg("device") = 0, "Waits for the work queued on a CUDA stream (1 = legacy default).");
}

}  // namespace zarrgpu::python
