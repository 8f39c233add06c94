// A selection: per dimension an integer or a start:stop:step slice (NumPy
// basic indexing), or a list of integer positions (orthogonal indexing, as
// zarr-python's `oindex` and xarray's OuterIndexer: each listed dimension is
// indexed independently of the others). Integers drop their dimension from the
// result's shape; a list keeps it, with one position per listed index, in the
// list's order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zarrgpu {

struct DimSelection {
  // Unnormalised, as a user wrote it; nullopt = omitted (":" parts).
  std::optional<std::int64_t> start, stop, step;
  bool is_index = false;  // an integer: `start` holds it (negative counts from the end)
  // A list of positions (negative counts from the end; any order, repeats
  // allowed): used when `is_list`, and then start/stop/step are unused.
  std::vector<std::int64_t> list;
  bool is_list = false;

  static DimSelection all() { return {}; }
  static DimSelection index(std::int64_t i) { return {i, std::nullopt, std::nullopt, true, {}, false}; }
  static DimSelection slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                            std::optional<std::int64_t> step = std::nullopt) {
    return {start, stop, step, false, {}, false};
  }
  static DimSelection positions(std::vector<std::int64_t> list) {
    return {std::nullopt, std::nullopt, std::nullopt, false, std::move(list), true};
  }
};

// One dimension resolved against the array's extent: indices start + k*step,
// k < count; or, for a list, indices points[k] (count == points.size()).
struct DimRange {
  std::int64_t start = 0;
  std::int64_t step = 1;   // may be negative (reverse slices)
  std::uint64_t count = 0;
  bool keeps_dim = true;   // false for integer selections
  std::vector<std::uint64_t> points;  // a list's positions, normalised (0 <= p < extent)
  bool is_list = false;

  std::uint64_t position(std::uint64_t k) const {
    return is_list ? points[k] : std::uint64_t(start + std::int64_t(k) * step);
  }
};

class Selection {
 public:
  Selection() = default;  // everything
  explicit Selection(std::vector<DimSelection> dims) : dims_(std::move(dims)) {}
  // "0:10,:,5" , "::2,-1", "[3 1 7],:" (a list: entries separated by spaces),
  // "" or ":" (everything); "..." is not supported.
  static Selection parse(std::string_view text);

  const std::vector<DimSelection>& dims() const noexcept { return dims_; }

  // Resolves against `shape` (missing trailing dims select everything). Throws
  // Error(invalid_argument) for too many dims, out-of-range integers or list
  // entries, step 0.
  std::vector<DimRange> resolve(std::span<const std::uint64_t> shape) const;
  // The result's shape (integer dims dropped).
  static std::vector<std::uint64_t> result_shape(std::span<const DimRange> ranges);

  std::string to_string() const;

 private:
  std::vector<DimSelection> dims_;
};

}  // namespace zarrgpu
