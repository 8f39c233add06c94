#include "selection_arg.hpp"

#include <optional>
#include <vector>

#include <nanobind/ndarray.h>

namespace nb = nanobind;

namespace zarrgpu::python {
namespace {

std::optional<std::int64_t> optional_int(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return nb::cast<std::int64_t>(h);
}

}  // namespace

Selection selection_from_python(nb::handle dims) {
  if (dims.is_none()) return Selection{};
  std::vector<DimSelection> out;
  for (nb::handle d : dims) {
    // A list of positions arrives as a 1-D int64 NumPy array (zarrgpu/_indexing.py).
    nb::ndarray<const std::int64_t, nb::ndim<1>, nb::device::cpu> list;
    if (nb::try_cast(d, list, /*convert=*/false)) {
      std::vector<std::int64_t> v(list.shape(0));
      const std::int64_t stride = list.stride(0);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = list.data()[std::int64_t(i) * stride];
      out.push_back(DimSelection::positions(std::move(v)));
      continue;
    }
    auto t = nb::cast<nb::tuple>(d);
    if (t.size() != 4) throw nb::value_error("selection: expected (start, stop, step, is_index) per dimension");
    DimSelection s;
    s.start = optional_int(t[0]);
    s.stop = optional_int(t[1]);
    s.step = optional_int(t[2]);
    s.is_index = nb::cast<bool>(t[3]);
    out.push_back(s);
  }
  return Selection(std::move(out));
}

}  // namespace zarrgpu::python
