"""`zarrgpu convert` keeps a dataset's meaning: xarray opens the converted store as the
same dataset, for every pair of formats (issue 34, item 1). xarray maps the missing-value
marker differently per format (v2: the array's fill_value; v3: the `_FillValue` attribute),
and dimension names (v2: `_ARRAY_DIMENSIONS`; v3: dimension_names): convert must move them."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")


def _standard_times() -> xr.Dataset:
    t = pd.date_range("2000-01-01", periods=4, freq="6h")
    return xr.Dataset({"steps": (("time",), np.arange(4, dtype="i4"))}, coords={"time": t})


def _noleap_times() -> xr.Dataset:
    pytest.importorskip("cftime")
    t = xr.date_range("2001-02-27", periods=4, freq="D", calendar="noleap", use_cftime=True)
    return xr.Dataset({"steps": (("time",), np.arange(4, dtype="i4"))}, coords={"time": t})


def _packed() -> xr.Dataset:
    """ERA5-style packed int16 with _FillValue, scale_factor and add_offset."""
    values = np.array([[250.0, np.nan, 260.5], [0.0, 300.25, np.nan]])
    ds = xr.Dataset({"t2m": (("lat", "lon"), values, {"units": "K"})},
                    coords={"lat": [10.0, 0.0], "lon": [0.0, 0.25, 0.5]})
    ds["t2m"].encoding = {"dtype": "int16", "_FillValue": -32767, "scale_factor": 0.01, "add_offset": 273.15}
    return ds


def _zeros_and_bools() -> xr.Dataset:
    """Values equal to 0 and False, which a format 2 fill_value of 0 would mask."""
    return xr.Dataset({"mask": (("lon",), np.array([False, True, False, False])),
                       "count": (("lon",), np.array([0, 1, 0, 7], dtype="i8")),
                       "level": (("lon",), np.array([0, 0, 3, 4], dtype="u2"))},
                      coords={"lon": np.array([0, 90, 180, 270], dtype="i4")})


def _scalars_and_nan() -> xr.Dataset:
    """0-d variables and NaN where data is missing."""
    field = np.arange(12, dtype="f4").reshape(3, 4)
    field[1, 2] = np.nan
    return xr.Dataset({"field": (("y", "x"), field), "zero": ((), np.float64(0.0)), "n": ((), np.int32(0))},
                      coords={"y": [0.0, 1.0, 2.0], "x": [0, 1, 2, 3]}, attrs={"title": "scalars"})


def _string_coords() -> xr.Dataset:
    """String coordinates (v2 "<U", v3 fixed_length_utf32), an empty string among them."""
    return xr.Dataset({"v": (("station",), np.array([1.5, np.nan, 0.0]))},
                      coords={"station": np.array(["ab", "cde", ""])})


def _object_strings_and_bytes() -> xr.Dataset:
    """Variable-length strings (v2 "|O" + vlen-utf8, v3 "string"), non-ASCII among them, and
    fixed-length bytes (v2 "|S", v3 null_terminated_bytes)."""
    return xr.Dataset({"name": (("station",), np.array(["Zürich", "", "東京"], dtype=object)),
                       "code": (("station",), np.array([b"ZRH", b"", b"HND"]))},
                      coords={"station": [10, 20, 30]})


DATASETS = {"cf_time_standard": _standard_times, "cf_time_noleap": _noleap_times, "packed_int16": _packed,
            "zeros_and_bools": _zeros_and_bools, "scalars_and_nan": _scalars_and_nan,
            "string_coords": _string_coords, "object_strings_and_bytes": _object_strings_and_bytes}
FORMAT_PAIRS = [(2, 3), (3, 2), (3, 3), (2, 2)]


def _open(path) -> xr.Dataset:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xr.open_dataset(path, engine="zarr").load()


@pytest.mark.parametrize("src_format,dst_format", FORMAT_PAIRS, ids=[f"v{a}-to-v{b}" for a, b in FORMAT_PAIRS])
@pytest.mark.parametrize("name", sorted(DATASETS))
def test_convert_keeps_xarray_view(run_zarrgpu, tmp_path, name, src_format, dst_format):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        DATASETS[name]().to_zarr(src, zarr_format=src_format, consolidated=True)
    r = run_zarrgpu("convert", src, dst, "--format", dst_format, "--quiet")
    assert r.returncode == 0, r.stderr
    expected, actual = _open(src), _open(dst)
    xr.testing.assert_identical(actual, expected)
    # zarr-python reads every array of the output.
    group = zarr.open_group(dst, mode="r")
    assert group.metadata.zarr_format == dst_format
    for key, arr in group.arrays():
        np.testing.assert_array_equal(arr[...], zarr.open_group(src, mode="r")[key][...], err_msg=key)
