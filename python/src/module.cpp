// zarrgpu._zarrgpu: the nanobind extension. The Python package (zarrgpu/)
// wraps these classes with NumPy-style indexing, dtypes and errors.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "device_array.hpp"
#include "dlpack_export.hpp"
#include "errors.hpp"
#include "zarrgpu/device.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {
void bind_array(nb::module_& m);
void bind_group(nb::module_& m);
void bind_settings(nb::module_& m);
void bind_ipc(nb::module_& m);
void bind_chunk_batch(nb::module_& m);
}  // namespace zarrgpu::python

NB_MODULE(_zarrgpu, m) {
  using namespace zarrgpu::python;
  m.doc() = "zarrgpu C++ core";
  register_error_translator(m);
  bind_device_array(m);
  bind_dlpack(m);
  bind_array(m);
  bind_group(m);
  bind_settings(m);
  bind_ipc(m);
  bind_chunk_batch(m);
  m.def("cuda_available", &zarrgpu::cuda_available,
        "Whether this build has the CUDA path and a GPU is present at run time.");
#if ZARRGPU_HAVE_CUDA
  m.attr("built_with_cuda") = true;
#else
  m.attr("built_with_cuda") = false;
#endif
}
