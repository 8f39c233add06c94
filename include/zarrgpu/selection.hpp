// A selection: per dimension an integer or a start:stop:step slice (NumPy
// basic indexing). Integers drop their dimension from the result's shape.
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

  static DimSelection all() { return {}; }
  static DimSelection index(std::int64_t i) { return {i, std::nullopt, std::nullopt, true}; }
  static DimSelection slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                            std::optional<std::int64_t> step = std::nullopt) {
    return {start, stop, step, false};
  }
};

// One dimension resolved against the array's extent: indices start + k*step, k < count.
struct DimRange {
  std::int64_t start = 0;
  std::int64_t step = 1;   // may be negative (reverse slices)
  std::uint64_t count = 0;
  bool keeps_dim = true;   // false for integer selections
};

class Selection {
 public:
  Selection() = default;  // everything
  explicit Selection(std::vector<DimSelection> dims) : dims_(std::move(dims)) {}
  // "0:10,:,5" , "::2,-1", "" or ":" (everything); "..." is not supported.
  static Selection parse(std::string_view text);

  const std::vector<DimSelection>& dims() const noexcept { return dims_; }

  // Resolves against `shape` (missing trailing dims select everything). Throws
  // Error(invalid_argument) for too many dims, out-of-range integers, step 0.
  std::vector<DimRange> resolve(std::span<const std::uint64_t> shape) const;
  // The result's shape (integer dims dropped).
  static std::vector<std::uint64_t> result_shape(std::span<const DimRange> ranges);

  std::string to_string() const;

 private:
  std::vector<DimSelection> dims_;
};

}  // namespace zarrgpu
