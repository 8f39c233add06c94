#include "errors.hpp"

#include <exception>
#include <new>

#include "core/error_kind_name.hpp"
#include "zarrgpu/error.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {

const char* kind_name(ErrorKind kind) { return error_kind_name(kind).data(); }

namespace {

// Class names in python/zarrgpu/errors.py.
const char* class_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_argument: return "InvalidArgumentError";
    case ErrorKind::not_found: return "NotFoundError";
    case ErrorKind::invalid_metadata: return "InvalidMetadataError";
    case ErrorKind::unsupported: return "UnsupportedError";
    case ErrorKind::corrupt_data: return "CorruptDataError";
    case ErrorKind::io: return "StorageError";
    case ErrorKind::device: return "DeviceError";
    case ErrorKind::internal: return "InternalError";
    case ErrorKind::resource_exhausted: return "ResourceExhaustedError";
  }
  return "ZarrgpuError";
}

// A Python str of C++ text that may not be UTF-8 (paths are bytes on POSIX,
// and a cause may quote the bytes of a broken document): undecodable bytes
// appear as \xNN escapes instead of failing the conversion.
nb::str text(const std::string& s) {
  return nb::steal<nb::str>(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace"));
}

void raise_error(const Error& e) {
  // Runs with the GIL held (nanobind calls translators from the binding layer).
  try {
    nb::module_ errors = nb::module_::import_("zarrgpu.errors");
    nb::object cls = errors.attr(class_name(e.kind()));
    nb::object exc = cls(text(e.what()));
    exc.attr("kind") = nb::str(kind_name(e.kind()));
    exc.attr("cause") = text(e.cause());
    const ErrorContext& c = e.context();
    exc.attr("array") = text(c.array);
    exc.attr("chunk_key") = text(c.chunk_key);
    exc.attr("codec") = text(c.codec);
    exc.attr("store") = text(c.store);
    exc.attr("document") = text(c.document);
    PyErr_SetObject(cls.ptr(), exc.ptr());
  } catch (nb::python_error& pe) {
    // zarrgpu.errors failed to import: still say what went wrong in C++.
    pe.restore();
    PyErr_Clear();
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

}  // namespace

void register_error_translator(nb::module_&) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      raise_error(e);
    } catch (const std::bad_alloc&) {
      // An allocation within the memory limit that failed all the same: the
      // documented kind (a MemoryError too), though no layer named the chunk.
      raise_error(Error(ErrorKind::resource_exhausted, "out of memory"));
    }
    // Anything else propagates to nanobind's own translators.
  });
}

}  // namespace zarrgpu::python
