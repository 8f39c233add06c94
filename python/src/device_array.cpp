#include "device_array.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <nanobind/ndarray.h>

#if ZARRGPU_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "dlpack_export.hpp"
#include "zarrgpu/error.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {
namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw Error(ErrorKind::device, std::string(what) + ": this build of zarrgpu has no CUDA path (built with ZARRGPU_CUDA=OFF or without nvcc)");
}

#if ZARRGPU_HAVE_CUDA
void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw Error(ErrorKind::device, std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

// Makes `device` current for the scope, restoring the caller's device after.
class CurrentDevice {
 public:
  explicit CurrentDevice(int device) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) check(cudaSetDevice(device), "cudaSetDevice");
  }
  ~CurrentDevice() { cudaSetDevice(previous_); }
 private:
  int previous_ = 0;
};
#endif

std::size_t element_count(const std::vector<std::int64_t>& shape) {
  std::size_t n = 1;
  for (auto s : shape) {
    if (s < 0) throw Error(ErrorKind::invalid_argument, "negative extent in shape");
    n *= static_cast<std::size_t>(s);
  }
  return n;
}

}  // namespace

DeviceAllocation::DeviceAllocation(std::size_t bytes, Device device) : bytes_(bytes), device_(device) {
  if (device.kind == Device::Kind::cpu) {
    // 64-byte alignment, as NumPy and DLPack consumers prefer; at least 1 byte so data() is non-null.
    std::size_t size = ((bytes + 63) / 64) * 64;
    ptr_ = std::aligned_alloc(64, size ? size : 64);
    if (!ptr_) throw std::bad_alloc();
    return;
  }
#if ZARRGPU_HAVE_CUDA
  require_cuda_device(device);  // "no CUDA device" rather than a driver error from the first call
  CurrentDevice guard(device.index);
  check(cudaMalloc(&ptr_, bytes ? bytes : 1), ("cudaMalloc of " + std::to_string(bytes) + " bytes on " + device.to_string()).c_str());
#else
  no_cuda("allocating device memory");
#endif
}

DeviceAllocation::~DeviceAllocation() {
  if (!ptr_) return;
  if (device_.kind == Device::Kind::cpu) {
    std::free(ptr_);
    return;
  }
#if ZARRGPU_HAVE_CUDA
  int previous = 0;
  cudaGetDevice(&previous);
  cudaSetDevice(device_.index);
  cudaFree(ptr_);  // implicitly synchronizes: pending reads into it finish first
  cudaSetDevice(previous);
#endif
}

ReadyEvent::~ReadyEvent() {
#if ZARRGPU_HAVE_CUDA
  if (event_) cudaEventDestroy(static_cast<cudaEvent_t>(event_));
#endif
}

DeviceArray DeviceArray::allocate(std::vector<std::int64_t> shape, DataType dtype, Device device) {
  DeviceArray a;
  std::size_t bytes = element_count(shape) * size_of(dtype);
  a.memory = std::make_shared<DeviceAllocation>(bytes, device);
  a.shape = std::move(shape);
  a.dtype = dtype;
  return a;
}

void* cuda_stream_handle(std::uintptr_t stream) {
#if ZARRGPU_HAVE_CUDA
  if (stream == 1) return static_cast<void*>(cudaStreamLegacy);
  if (stream == 2) return static_cast<void*>(cudaStreamPerThread);
#endif
  return reinterpret_cast<void*>(stream);
}

void* create_stream(int device) {
#if ZARRGPU_HAVE_CUDA
  CurrentDevice guard(device);
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return s;
#else
  (void)device;
  no_cuda("creating a CUDA stream");
#endif
}

void release_stream(void* stream, int device) {
#if ZARRGPU_HAVE_CUDA
  if (!stream) return;
  CurrentDevice guard(device);
  cudaStreamDestroy(static_cast<cudaStream_t>(stream));
#else
  (void)stream; (void)device;
#endif
}

void synchronize_stream(void* stream, int device) {
#if ZARRGPU_HAVE_CUDA
  CurrentDevice guard(device);
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize after the read");
#else
  (void)stream; (void)device;
  no_cuda("synchronizing a CUDA stream");
#endif
}

std::shared_ptr<ReadyEvent> record_ready(void* stream, int device) {
#if ZARRGPU_HAVE_CUDA
  CurrentDevice guard(device);
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  auto ready = std::make_shared<ReadyEvent>(e, device);
  check(cudaEventRecord(e, static_cast<cudaStream_t>(stream)), "cudaEventRecord after the read");
  return ready;
#else
  (void)stream; (void)device;
  no_cuda("recording a CUDA event");
#endif
}

void wait_ready(const DeviceArray& array, void* consumer) {
  if (!array.ready) return;
#if ZARRGPU_HAVE_CUDA
  CurrentDevice guard(array.ready->device());
  check(cudaStreamWaitEvent(static_cast<cudaStream_t>(consumer), static_cast<cudaEvent_t>(array.ready->get()), 0),
        "cudaStreamWaitEvent (consumer stream waiting on the read)");
#else
  (void)consumer;
#endif
}

static void synchronize_ready(const DeviceArray& array) {
  if (!array.ready) return;
#if ZARRGPU_HAVE_CUDA
  CurrentDevice guard(array.ready->device());
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(array.ready->get())), "cudaEventSynchronize");
#endif
}

void copy_device_to_host(void* host, const void* device_ptr, std::size_t bytes) {
#if ZARRGPU_HAVE_CUDA
  check(cudaMemcpy(host, device_ptr, bytes, cudaMemcpyDefault), "cudaMemcpy device to host");
#else
  (void)host; (void)device_ptr; (void)bytes;
  no_cuda("copying device memory to the host");
#endif
}

namespace {

nb::object numpy_dtype(DataType t) {
  return nb::module_::import_("zarrgpu._dtypes").attr("numpy_dtype")(nb::str(std::string(v3_name(t)).c_str()));
}

nb::tuple shape_tuple(const DeviceArray& a) {
  nb::list l;
  for (auto s : a.shape) l.append(nb::int_(s));
  return nb::tuple(l);
}

// Host copy as a NumPy array (waits for the producing read).
nb::object to_numpy(const DeviceArray& a) {
  // Bytes first, then a view: NumPy cannot hand dtypes such as ml_dtypes' bfloat16 to nanobind.
  nb::object np = nb::module_::import_("numpy");
  nb::object bytes = np.attr("empty")(a.nbytes(), np.attr("uint8"));
  nb::object out = bytes.attr("view")(numpy_dtype(a.dtype)).attr("reshape")(shape_tuple(a));
  if (a.nbytes() == 0) return out;
  void* host = nb::cast<nb::ndarray<nb::c_contig, nb::device::cpu>>(bytes).data();
  if (a.device().kind == Device::Kind::cpu) {
    std::memcpy(host, a.data(), a.nbytes());
    return out;
  }
  {
    nb::gil_scoped_release release;
    synchronize_ready(a);
    copy_device_to_host(host, a.data(), a.nbytes());
  }
  return out;
}

nb::dict cuda_array_interface(const DeviceArray& a) {
  if (a.device().kind != Device::Kind::cuda)
    throw nb::attribute_error("__cuda_array_interface__: this DeviceArray is in host memory");
  if (a.dtype == DataType::bfloat16)
    throw nb::attribute_error("__cuda_array_interface__ has no bfloat16 type string; use DLPack (__dlpack__)");
  nb::dict d;
  d["shape"] = shape_tuple(a);
  d["typestr"] = nb::str(numpy_str(a.dtype).c_str());
  d["data"] = nb::make_tuple(nb::int_(reinterpret_cast<std::uintptr_t>(a.data())), false);
  d["version"] = 3;
  d["strides"] = nb::none();
  // CAI v3: the stream the consumer must synchronize with; None = ready now.
  if (a.ready && a.stream != 0) d["stream"] = nb::int_(a.stream);
  else d["stream"] = nb::none();
  return d;
}

}  // namespace

void bind_device_array(nb::module_& m) {
  nb::class_<DeviceArray>(m, "DeviceArray",
      "An n-dimensional array in device memory owned by zarrgpu. Zero-copy to CuPy, PyTorch, JAX "
      "(DLPack, __cuda_array_interface__); .get() copies it to a NumPy array.")
      .def_prop_ro("shape", [](const DeviceArray& a) { return shape_tuple(a); })
      .def_prop_ro("ndim", [](const DeviceArray& a) { return a.shape.size(); })
      .def_prop_ro("size", [](const DeviceArray& a) { return element_count(a.shape); })
      .def_prop_ro("nbytes", &DeviceArray::nbytes)
      .def_prop_ro("dtype", [](const DeviceArray& a) { return numpy_dtype(a.dtype); })
      .def_prop_ro("zarr_dtype", [](const DeviceArray& a) { return std::string(v3_name(a.dtype)); })
      .def_prop_ro("device", [](const DeviceArray& a) { return a.device().to_string(); })
      .def_prop_ro("ptr", [](const DeviceArray& a) { return reinterpret_cast<std::uintptr_t>(a.data()); },
                   "The data pointer (device pointer for CUDA arrays).")
      .def_prop_ro("stream", [](const DeviceArray& a) -> nb::object {
            if (a.ready && a.stream != 0) return nb::int_(a.stream);
            return nb::none();
          }, "The stream the producing read was enqueued on, or None when the data is ready.")
      .def("__len__", [](const DeviceArray& a) {
            if (a.shape.empty()) throw nb::type_error("len() of a 0-d DeviceArray");
            return a.shape[0];
          })
      .def("synchronize", [](const DeviceArray& a) { nb::gil_scoped_release r; synchronize_ready(a); },
           "Blocks until the read that produced this array has finished.")
      .def("get", &to_numpy, "A host copy as a NumPy array.")
      .def_prop_ro("__cuda_array_interface__", &cuda_array_interface)
      .def("__dlpack_device__", [](const DeviceArray& a) {
            DLDevice d = to_dl_device(a.device());
            return nb::make_tuple(static_cast<int>(d.device_type), d.device_id);
          })
      .def("__dlpack__",
           [](nb::object self, nb::object stream, nb::object max_version, nb::object dl_device, nb::object copy) {
             DeviceArray& a = nb::cast<DeviceArray&>(self);
             return export_dlpack(self, a, stream, max_version, dl_device, copy);
           },
           nb::kw_only(), nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
           nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
      // Device memory belongs to one process: say so rather than pickle's "cannot pickle" on
      // a nanobind type (the Array it was read from pickles; so does a host copy).
      .def("__reduce__", [](const DeviceArray& a) -> nb::object {
            throw nb::type_error(("a zarrgpu.DeviceArray (" + a.device().to_string() +
                                  " memory) cannot be pickled or copied: pickle the zarrgpu.Array it was "
                                  "read from (it re-opens by location), or a host copy (.get())").c_str());
          })
      .def("__repr__", [](const DeviceArray& a) {
            std::string s = "DeviceArray(shape=(";
            for (std::size_t i = 0; i < a.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(a.shape[i]);
            if (a.shape.size() == 1) s += ",";
            return s + "), dtype=" + std::string(v3_name(a.dtype)) + ", device=" + a.device().to_string() + ")";
          })
      // Host-memory DeviceArray, for exercising the DLPack export without a GPU.
      .def_static("_host_empty", [](std::vector<std::int64_t> shape, const std::string& dtype) {
            auto t = from_v3_name(dtype);
            if (!t) throw Error(ErrorKind::invalid_argument, "unknown data type '" + dtype + "'");
            return DeviceArray::allocate(std::move(shape), *t, Device::cpu());
          });
}

}  // namespace zarrgpu::python
