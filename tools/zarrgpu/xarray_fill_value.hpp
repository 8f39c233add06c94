// What xarray reads as an array's missing-value marker, which differs between
// the formats (xarray/backends/zarr.py, ZarrStore.open_store_variable and
// FillValueCoder):
// - format 2: the array's `fill_value` is taken as `_FillValue` (CF masking);
//   a `null` fill value masks nothing;
// - format 3: `fill_value` is ignored; the `_FillValue` attribute masks, its
//   value encoded per dtype: integers and bools as themselves, floats as the
//   base64 of the little-endian float64, complex as a pair of those.
// `zarrgpu convert` moves the marker between the two places when it changes
// the format, so that xarray sees the same dataset on both sides.
#pragma once

#include "metadata/metadata.hpp"

namespace zarrgpu::cli {

struct MissingValue {
  FillValue fill;   // the destination array's fill_value
  json attributes;  // the destination's attributes (`_FillValue` added or removed)
};

// The fill value and attributes an array of `src` gets in format `dst_format`.
// Format 3 -> 2: `_FillValue` (decoded) becomes the fill value, else null.
// Format 2 -> 3: the fill value stays and is also written as `_FillValue`;
// a null one becomes 0 (NaN for floats, as xarray writes) with no `_FillValue`.
// Same format: unchanged. An undecodable `_FillValue` stays as it is.
MissingValue missing_value_for_format(const ArrayMetadata& src, int dst_format);

}  // namespace zarrgpu::cli
