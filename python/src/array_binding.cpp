// zarrgpu._zarrgpu.Array: the C++ Array with reads into NumPy memory (no copy),
// into new device memory (DeviceArray) or into a caller's device buffer. Every
// read and write releases the GIL.
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "device_array.hpp"
#include "node_json.hpp"
#include "selection_arg.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/memory_limit.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {
namespace {

using HostArray = nb::ndarray<nb::c_contig, nb::device::cpu>;
using ConstHostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

std::size_t selection_bytes(const Array& a, const Selection& sel, std::vector<std::uint64_t>* shape_out = nullptr) {
  auto shape = a.shape();
  std::vector<DimRange> ranges;
  try {
    ranges = sel.resolve(shape);
  } catch (const Error& e) {
    throw e.with_context({a.path(), "", "", a.store()->describe()});
  }
  auto result = Selection::result_shape(ranges);
  // The buffer's size in bytes, checked: a selection of [2^31, 2^31] float32
  // must not wrap to a 0-byte buffer that the read then overruns.
  std::size_t n = size_of(a.dtype());
  bool empty = false;
  for (auto s : result) empty = empty || s == 0;
  for (auto s : result) {
    if (!empty && (__builtin_mul_overflow(n, s, &n) || n > std::size_t(PTRDIFF_MAX)))
      throw Error(ErrorKind::invalid_argument,
                  "the selection [" + sel.to_string() + "] holds more than 2^63 bytes",
                  ErrorContext{a.path(), "", "", a.store()->describe()});
  }
  if (empty) n = 0;
  if (shape_out) *shape_out = std::move(result);
  return n;
}

void check_bytes(const Array& a, const Selection& sel, std::size_t got, const char* what) {
  const std::size_t want = selection_bytes(a, sel);
  if (got != want)
    throw Error(ErrorKind::invalid_argument,
                std::string(what) + ": the buffer has " + std::to_string(got) + " bytes, the selection [" +
                    sel.to_string() + "] of " + std::string(v3_name(a.dtype())) + " needs " + std::to_string(want),
                ErrorContext{a.path(), "", "", a.store()->describe()});
}

// Before any device allocation for the result: DeviceArray and DLPack carry
// booleans and numbers only (Array::read says the same for C++ callers).
void check_device_type(const Array& a) {
  if (!is_numeric(a.dtype()))
    throw Error(ErrorKind::unsupported,
                "arrays of data type " + describe(a.dtype()) +
                    " cannot be read to a device (only booleans and numbers can); read them to the host",
                ErrorContext{a.path(), "", "", a.store()->describe()});
}

ReadOptions read_options(unsigned threads, bool verify_checksums, std::uint64_t device_memory_limit = 0) {
  ReadOptions o;
  o.threads = threads;
  o.verify_checksums = verify_checksums;
  o.device_memory_limit = device_memory_limit;
  return o;
}

// A device read on the caller's stream (left asynchronous, an event recorded
// for consumers) or on a stream of our own (synchronized before returning).
void read_on_device(const Array& a, const Selection& sel, void* out, std::size_t bytes, int device,
                    nb::object stream, ReadOptions options, DeviceArray* result) {
  const bool caller_stream = !stream.is_none();
  const std::uintptr_t stream_int = caller_stream ? nb::cast<std::uintptr_t>(stream) : 0;
  nb::gil_scoped_release release;
  void* s = caller_stream ? cuda_stream_handle(stream_int) : create_stream(device);
  options.cuda_stream = s;
  try {
    a.read(sel, out, bytes, Device::cuda(device), options);
    if (caller_stream) {
      auto ready = record_ready(s, device);
      if (result) { result->stream = stream_int; result->ready = std::move(ready); }
    } else {
      synchronize_stream(s, device);
      release_stream(s, device);
    }
  } catch (...) {
    if (!caller_stream) release_stream(s, device);
    throw;
  }
}

// string arrays: str (strict UTF-8, as numcodecs' VLenUTF8 decodes); bytes arrays: bytes.
nb::list values_to_python(const Array& a, const std::vector<std::string>& values) {
  const bool text = a.dtype() == DataType::string;
  nb::list out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string& v = values[i];
    PyObject* o = text ? PyUnicode_DecodeUTF8(v.data(), static_cast<Py_ssize_t>(v.size()), "strict")
                       : PyBytes_FromStringAndSize(v.data(), static_cast<Py_ssize_t>(v.size()));
    if (o == nullptr) {
      PyErr_Clear();
      throw Error(ErrorKind::corrupt_data, "element " + std::to_string(i) + " of the selection is not valid UTF-8",
                  ErrorContext{a.path(), "", "vlen-utf8", a.store()->describe()});
    }
    out.append(nb::steal(o));
  }
  return out;
}

// A sequence of str (string arrays, written as UTF-8) or bytes (bytes arrays).
std::vector<std::string> values_from_python(const Array& a, nb::handle values) {
  const bool text = a.dtype() == DataType::string;
  std::vector<std::string> out;
  for (nb::handle v : values) {
    if (text && PyUnicode_Check(v.ptr())) {
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(v.ptr(), &n);
      if (s == nullptr) throw nb::python_error();
      out.emplace_back(s, static_cast<std::size_t>(n));
    } else if (!text && PyBytes_Check(v.ptr())) {
      out.emplace_back(PyBytes_AS_STRING(v.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(v.ptr())));
    } else {
      throw Error(ErrorKind::invalid_argument,
                  std::string("a ") + (text ? "string" : "bytes") + " array takes " + (text ? "str" : "bytes") +
                      " values, got " + nb::cast<std::string>(nb::str(v.type().attr("__name__"))),
                  ErrorContext{a.path(), "", "", a.store()->describe()});
    }
  }
  return out;
}

}  // namespace

void bind_array(nb::module_& m) {
  nb::class_<Array>(m, "Array")
      .def_static("open",
                  [](const std::string& url, const std::string& path) {
                    auto store = open_store(url);
                    nb::gil_scoped_release release;
                    return Array::open(std::move(store), path);
                  },
                  nb::arg("url"), nb::arg("path") = "")
      .def_static("create",
                  [](const std::string& url, const std::string& path, const std::string& metadata_doc,
                     const std::string& attributes_doc, bool overwrite) {
                    // The metadata engineer's parsers validate what Python assembled.
                    const ErrorContext where{path, "", "", url};
                    json doc = parse_metadata_document(metadata_doc, where);
                    json attributes = parse_metadata_document(attributes_doc, where);
                    ArrayMetadata meta;
                    if (doc.value("zarr_format", 3) == 2) {
                      meta = parse_zarray(doc, attributes, path);
                    } else {
                      doc["attributes"] = std::move(attributes);
                      meta = std::get<ArrayMetadata>(parse_zarr_json(doc, path));
                    }
                    auto store = open_store(url, /*create=*/true);
                    nb::gil_scoped_release release;
                    return Array::create(std::move(store), path, std::move(meta), overwrite);
                  },
                  nb::arg("url"), nb::arg("path"), nb::arg("metadata"), nb::arg("attributes"),
                  nb::arg("overwrite") = false)
      .def_prop_ro("path", [](const Array& a) { return a.path(); })
      .def_prop_ro("store", [](const Array& a) { return a.store()->describe(); })
      .def_prop_ro("metadata", [](const Array& a) { return to_python(describe(a.metadata())); })
      .def("result_shape",
           [](const Array& a, nb::handle dims) {
             std::vector<std::uint64_t> shape;
             selection_bytes(a, selection_from_python(dims), &shape);
             return shape;
           })
      .def("check_output_size",
           [](const Array& a, nb::handle dims) {
             // Before the caller allocates the output: a selection beyond the
             // memory limit is a ResourceExhaustedError naming the array, not
             // NumPy's MemoryError (or, under a sanitizer, an abort).
             const Selection sel = selection_from_python(dims);
             check_allocation(selection_bytes(a, sel),
                              "the selection [" + sel.to_string() + "] of " + std::string(v3_name(a.dtype())),
                              ErrorContext{a.path(), "", "", a.store()->describe()});
           })
      .def("chunk_key", [](const Array& a, std::vector<std::uint64_t> coords) { return a.chunk_key(coords); })
      .def("read_into",
           [](const Array& a, nb::handle dims, HostArray out, unsigned threads, bool verify_checksums) {
             Selection sel = selection_from_python(dims);
             check_bytes(a, sel, out.nbytes(), "read into a host array");
             std::span<std::byte> dest(static_cast<std::byte*>(out.data()), out.nbytes());
             nb::gil_scoped_release release;
             a.read(sel, dest, read_options(threads, verify_checksums));
           },
           nb::arg("selection"), nb::arg("out"), nb::arg("threads") = 0, nb::arg("verify_checksums") = true)
      .def("read_device",
           [](const Array& a, nb::handle dims, int device, nb::object stream, unsigned threads, bool verify_checksums,
              std::uint64_t device_memory_limit) {
             check_device_type(a);
             Selection sel = selection_from_python(dims);
             std::vector<std::uint64_t> shape;
             const std::size_t bytes = selection_bytes(a, sel, &shape);
             std::vector<std::int64_t> ishape(shape.begin(), shape.end());
             DeviceArray out;
             {
               nb::gil_scoped_release release;
               out = DeviceArray::allocate(std::move(ishape), a.dtype(), Device::cuda(device));
             }
             read_on_device(a, sel, out.data(), bytes, device, stream,
                            read_options(threads, verify_checksums, device_memory_limit), &out);
             return out;
           },
           nb::arg("selection"), nb::arg("device") = 0, nb::arg("stream") = nb::none(), nb::arg("threads") = 0,
           nb::arg("verify_checksums") = true, nb::arg("device_memory_limit") = 0)
      .def("read_into_device",
           [](const Array& a, nb::handle dims, std::uintptr_t ptr, std::size_t nbytes, int device, nb::object stream,
              unsigned threads, bool verify_checksums, std::uint64_t device_memory_limit) {
             check_device_type(a);
             Selection sel = selection_from_python(dims);
             check_bytes(a, sel, nbytes, "read into a device buffer");
             read_on_device(a, sel, reinterpret_cast<void*>(ptr), nbytes, device, stream,
                            read_options(threads, verify_checksums, device_memory_limit), nullptr);
           },
           nb::arg("selection"), nb::arg("ptr"), nb::arg("nbytes"), nb::arg("device") = 0,
           nb::arg("stream") = nb::none(), nb::arg("threads") = 0, nb::arg("verify_checksums") = true,
           nb::arg("device_memory_limit") = 0)
      .def("resize",
           [](Array& a, std::vector<std::uint64_t> shape) {
             nb::gil_scoped_release release;
             a.resize(std::move(shape));
           },
           nb::arg("shape"))
      .def("append",
           [](Array& a, ConstHostArray data, std::vector<std::uint64_t> shape, std::size_t axis) {
             std::span<const std::byte> src(static_cast<const std::byte*>(data.data()), data.nbytes());
             nb::gil_scoped_release release;
             return a.append(src, shape, axis);
           },
           nb::arg("data"), nb::arg("shape"), nb::arg("axis") = 0)
      .def("set_attributes",
           [](Array& a, const std::string& attributes_doc) {
             nb::gil_scoped_release release;
             a.set_attributes(attributes_doc);
           },
           nb::arg("attributes"))
      .def("read_variable_length",
           [](const Array& a, nb::handle dims, unsigned threads) {
             Selection sel = selection_from_python(dims);
             std::vector<std::string> values;
             {
               nb::gil_scoped_release release;
               values = a.read_variable_length(sel, read_options(threads, true));
             }
             return values_to_python(a, values);
           },
           nb::arg("selection"), nb::arg("threads") = 0)
      .def("write_variable_length",
           [](Array& a, nb::handle dims, nb::handle values, unsigned threads, bool write_empty_chunks) {
             Selection sel = selection_from_python(dims);
             std::vector<std::string> items = values_from_python(a, values);
             WriteOptions o;
             o.threads = threads;
             o.write_empty_chunks = write_empty_chunks;
             nb::gil_scoped_release release;
             a.write_variable_length(sel, items, o);
           },
           nb::arg("selection"), nb::arg("values"), nb::arg("threads") = 0, nb::arg("write_empty_chunks") = false)
      .def("write",
           [](Array& a, nb::handle dims, ConstHostArray data, unsigned threads, bool write_empty_chunks) {
             Selection sel = selection_from_python(dims);
             check_bytes(a, sel, data.nbytes(), "write");
             std::span<const std::byte> src(static_cast<const std::byte*>(data.data()), data.nbytes());
             WriteOptions o;
             o.threads = threads;
             o.write_empty_chunks = write_empty_chunks;
             nb::gil_scoped_release release;
             a.write(sel, src, o);
           },
           nb::arg("selection"), nb::arg("data"), nb::arg("threads") = 0, nb::arg("write_empty_chunks") = false);
}

}  // namespace zarrgpu::python
