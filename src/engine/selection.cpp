// Selections with NumPy basic-indexing semantics (integers and slices) and
// orthogonal integer lists.
#include "zarrgpu/selection.hpp"

#include <charconv>
#include <limits>

#include "zarrgpu/error.hpp"

namespace zarrgpu {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<std::int64_t> parse_int(std::string_view s, std::string_view whole, bool allow_empty) {
  s = trim(s);
  if (s.empty()) {
    if (allow_empty) return std::nullopt;
    throw Error(ErrorKind::invalid_argument, "selection '" + std::string(whole) + "': empty index");
  }
  if (s.front() == '+') s.remove_prefix(1);
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    throw Error(ErrorKind::invalid_argument,
                "selection '" + std::string(whole) + "': '" + std::string(s) + "' is not an integer");
  }
  return v;
}

}  // namespace

Selection Selection::parse(std::string_view text) {
  const std::string_view t = trim(text);
  // "" and ":" both mean everything (also for 0-d arrays).
  if (t.empty() || t == ":") return Selection();
  std::vector<DimSelection> dims;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = t.find(',', pos);
    const std::string_view part = trim(t.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (part == "...") throw Error(ErrorKind::invalid_argument, "selection '" + std::string(t) + "': '...' is not supported");
    if (!part.empty() && part.front() == '[') {
      if (part.size() < 2 || part.back() != ']')
        throw Error(ErrorKind::invalid_argument, "selection '" + std::string(t) + "': a list must end with ']'");
      std::vector<std::int64_t> list;
      std::string_view rest = part.substr(1, part.size() - 2);
      while (!(rest = trim(rest)).empty()) {
        const std::size_t space = rest.find_first_of(" \t");
        list.push_back(*parse_int(rest.substr(0, space), t, false));
        rest = space == std::string_view::npos ? std::string_view() : rest.substr(space);
      }
      dims.push_back(DimSelection::positions(std::move(list)));
    } else if (part.find(':') == std::string_view::npos) {
      dims.push_back(DimSelection::index(*parse_int(part, t, false)));
    } else {
      std::string_view fields[3];
      int n = 0;
      std::size_t p = 0;
      while (true) {
        if (n == 3) throw Error(ErrorKind::invalid_argument, "selection '" + std::string(t) + "': too many ':' in '" + std::string(part) + "'");
        const std::size_t colon = part.find(':', p);
        fields[n++] = part.substr(p, colon == std::string_view::npos ? std::string_view::npos : colon - p);
        if (colon == std::string_view::npos) break;
        p = colon + 1;
      }
      DimSelection d;
      d.start = parse_int(fields[0], t, true);
      d.stop = parse_int(fields[1], t, true);
      if (n == 3) d.step = parse_int(fields[2], t, true);
      dims.push_back(d);
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return Selection(std::move(dims));
}

std::vector<DimRange> Selection::resolve(std::span<const std::uint64_t> shape) const {
  if (dims_.size() > shape.size()) {
    throw Error(ErrorKind::invalid_argument, "selection '" + to_string() + "' has " + std::to_string(dims_.size()) +
                                                 " dimensions but the array has " + std::to_string(shape.size()));
  }
  std::vector<DimRange> out;
  out.reserve(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] > std::uint64_t(std::numeric_limits<std::int64_t>::max() / 2)) {
      throw Error(ErrorKind::invalid_argument, "dimension " + std::to_string(d) + " is too large");
    }
    const std::int64_t n = std::int64_t(shape[d]);
    static const DimSelection everything = DimSelection::all();
    const DimSelection& sel = d < dims_.size() ? dims_[d] : everything;
    DimRange r;
    if (sel.is_list) {
      r.is_list = true;
      r.points.reserve(sel.list.size());
      for (const std::int64_t v : sel.list) {
        const std::int64_t i = v < 0 ? v + n : v;
        if (i < 0 || i >= n) {
          throw Error(ErrorKind::invalid_argument, "list entry " + std::to_string(v) +
                                                       " is out of bounds for dimension " + std::to_string(d) +
                                                       " with size " + std::to_string(n));
        }
        r.points.push_back(std::uint64_t(i));
      }
      r.count = r.points.size();
    } else if (sel.is_index) {
      std::int64_t i = sel.start.value_or(0);
      if (i < 0) i += n;
      if (i < 0 || i >= n) {
        throw Error(ErrorKind::invalid_argument, "index " + std::to_string(sel.start.value_or(0)) +
                                                     " is out of bounds for dimension " + std::to_string(d) +
                                                     " with size " + std::to_string(n));
      }
      r = {i, 1, 1, false};
    } else {
      const std::int64_t step = sel.step.value_or(1);
      if (step == 0) throw Error(ErrorKind::invalid_argument, "slice step 0 in dimension " + std::to_string(d));
      // CPython's PySlice_AdjustIndices: clamp to [0, n] going forward,
      // [-1, n-1] going backward.
      auto adjust = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
        if (v < 0) { v = v < -n ? lo : v + n; if (v < lo) v = lo; }
        else if (v > hi) v = hi;
        return v;
      };
      std::int64_t start, stop;
      std::uint64_t count = 0;
      if (step > 0) {
        start = sel.start ? adjust(*sel.start, 0, n) : 0;
        stop = sel.stop ? adjust(*sel.stop, 0, n) : n;
        if (start < stop) count = (std::uint64_t(stop - start) + std::uint64_t(step) - 1) / std::uint64_t(step);
      } else {
        start = sel.start ? adjust(*sel.start, -1, n - 1) : n - 1;
        stop = sel.stop ? adjust(*sel.stop, -1, n - 1) : -1;
        const std::uint64_t abs_step = std::uint64_t(-(step + 1)) + 1;
        if (start > stop) count = (std::uint64_t(start - stop) - 1) / abs_step + 1;
      }
      if (count == 0) start = 0;
      // A single position: its step does not matter; keep it tame for planners.
      r = {start, count <= 1 ? 1 : step, count, true};
    }
    out.push_back(r);
  }
  return out;
}

std::vector<std::uint64_t> Selection::result_shape(std::span<const DimRange> ranges) {
  std::vector<std::uint64_t> s;
  for (const auto& r : ranges) if (r.keeps_dim) s.push_back(r.count);
  return s;
}

std::string Selection::to_string() const {
  if (dims_.empty()) return ":";
  std::string s;
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    if (d) s += ',';
    const auto& x = dims_[d];
    if (x.is_list) {
      s += '[';
      for (std::size_t i = 0; i < x.list.size(); ++i) {
        if (i) s += ' ';
        s += std::to_string(x.list[i]);
      }
      s += ']';
      continue;
    }
    if (x.is_index) { s += std::to_string(x.start.value_or(0)); continue; }
    if (x.start) s += std::to_string(*x.start);
    s += ':';
    if (x.stop) s += std::to_string(*x.stop);
    if (x.step) { s += ':'; s += std::to_string(*x.step); }
  }
  return s;
}

}  // namespace zarrgpu
