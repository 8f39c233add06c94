"""xr.open_dataset(engine="zarrgpu", device="cpu") against xarray's own zarr engine."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")
xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")

from _zarrgpu_corpus import array_stores, group_stores, requires_corpus  # noqa: E402

GROUPS = group_stores()
ARRAYS = array_stores()

# Encoding keys whose values must agree with engine="zarr" exactly. compressors,
# filters and serializer differ in type on purpose (dicts, not zarr-python codec objects).
ENCODING_KEYS = ("chunks", "preferred_chunks", "shards", "dtype", "fill_value", "_FillValue", "units",
                 "calendar", "scale_factor", "add_offset")


def _open_zarr(store, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "consolidated metadata not found"
        return xr.open_dataset(store, engine="zarr", **kw)


def _open_mine(store, **kw):
    return xr.open_dataset(store, engine="zarrgpu", device="cpu", **kw)


def _assert_same(mine: xr.Dataset, theirs: xr.Dataset):
    xr.testing.assert_identical(mine, theirs)
    assert set(mine.variables) == set(theirs.variables)
    for name, v in theirs.variables.items():
        m = mine.variables[name]
        assert type(m.data) is type(v.data) or not isinstance(v.data, np.ndarray), name
        for key in ENCODING_KEYS:
            assert (key in m.encoding) == (key in v.encoding), f"{name}: encoding[{key!r}] presence"
            if key in v.encoding:
                np.testing.assert_equal(m.encoding[key], v.encoding[key], err_msg=f"{name}: encoding[{key!r}]")
                if key in ("fill_value", "_FillValue") and v.encoding[key] is not None:
                    assert np.asarray(m.encoding[key]).dtype == np.asarray(v.encoding[key]).dtype
        for key in ("compressors", "filters"):
            assert len(m.encoding[key]) == len(v.encoding[key]), f"{name}: encoding[{key!r}]"


def test_engine_is_registered():
    assert "zarrgpu" in xr.backends.list_engines()


@requires_corpus
@pytest.mark.parametrize("store", GROUPS, ids=[s.name for s in GROUPS])
@pytest.mark.parametrize("options", [{}, {"decode_cf": False}, {"mask_and_scale": False}, {"decode_times": False}],
                         ids=["default", "no_cf", "no_mask", "no_times"])
def test_group_store_identical_to_zarr_engine(store, options):
    theirs = _open_zarr(store, **options)
    mine = _open_mine(store, **options)
    _assert_same(mine, theirs)  # lazily: metadata, coordinates (indexes load eagerly)
    _assert_same(mine.load(), theirs.load())


@requires_corpus
@pytest.mark.parametrize("store", ARRAYS, ids=[s.name for s in ARRAYS])
def test_root_array_store_is_refused_clearly(store):
    # engine="zarr" cannot open these either; the array API tests cover them (test_api.py).
    with pytest.raises(ValueError, match="single Zarr array"):
        _open_mine(store)


@requires_corpus
@pytest.mark.parametrize("store", GROUPS, ids=[s.name for s in GROUPS])
def test_dask_chunks_follow_the_zarr_chunks(store):
    pytest.importorskip("dask")
    theirs = _open_zarr(store, chunks={})
    mine = _open_mine(store, chunks={})
    for name, v in theirs.data_vars.items():
        assert mine[name].chunks == v.chunks
        assert type(mine[name].data).__name__ == "Array"  # dask
    _assert_same(mine.compute(), theirs.compute())
    mine2 = _open_mine(store, chunks={d: 2 for d in theirs.dims})
    xr.testing.assert_identical(mine2.compute(), theirs.compute())


@requires_corpus
@pytest.mark.parametrize("store", GROUPS, ids=[s.name for s in GROUPS])
def test_outer_vectorized_and_negative_step_indexing(store):
    theirs = _open_zarr(store)
    mine = _open_mine(store)
    for name, v in theirs.data_vars.items():
        dims = v.dims
        outer = {d: [0, v.sizes[d] - 1] for d in dims[:2]}
        xr.testing.assert_identical(mine[name].isel(outer), v.isel(outer))
        vec = {d: xr.DataArray([0, v.sizes[d] - 1, 0], dims="points") for d in dims[:2]}
        xr.testing.assert_identical(mine[name].isel(vec), v.isel(vec))
        rev = {d: slice(None, None, -2) for d in dims}
        xr.testing.assert_identical(mine[name].isel(rev), v.isel(rev))
        xr.testing.assert_identical(mine[name][..., 1], v[..., 1])


@requires_corpus
def test_sub_group_without_dimension_names_fails_like_zarr_engine():
    store = next(s for s in GROUPS if s.name.startswith("v2_group"))
    with pytest.raises(KeyError):
        _open_zarr(store, group="sub")
    with pytest.raises(KeyError):
        _open_mine(store, group="sub")


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_cf_encoded_dataset_written_by_xarray(tmp_path, zarr_format):
    import pandas as pd

    time = pd.date_range("2001-01-01", periods=5, freq="6h")
    rng = np.random.default_rng(0)
    t2m = rng.normal(280, 5, size=(5, 4, 6)).astype(np.float32)
    t2m[0, 0, 0] = np.nan
    ds = xr.Dataset(
        {
            "t2m": (("time", "lat", "lon"), t2m, {"units": "K", "long_name": "2 m temperature"}),
            "count": (("lat", "lon"), rng.integers(0, 9, size=(4, 6)).astype(np.int16)),
        },
        coords={"time": time, "lat": np.linspace(-60, 60, 4), "lon": np.arange(6.0)},
        attrs={"title": "cf test", "history": "written by test_xarray.py"},
    )
    ds["t2m"].encoding.update({"dtype": "int16", "scale_factor": 0.01, "add_offset": 280.0, "_FillValue": -32768,
                               "chunks": (2, 4, 3)})
    ds["count"].encoding.update({"_FillValue": -1})
    path = tmp_path / f"cf{zarr_format}.zarr"
    ds.to_zarr(path, zarr_format=zarr_format, consolidated=True)
    theirs = _open_zarr(path)
    mine = _open_mine(path)
    _assert_same(mine, theirs)
    _assert_same(mine.load(), theirs.load())
    assert mine.t2m.encoding["scale_factor"] == 0.01
    assert np.isnan(mine.t2m.values[0, 0, 0])
    assert mine.time.dtype.kind == "M"
    np.testing.assert_allclose(mine.t2m.values, t2m, atol=0.006, equal_nan=True)


def test_device_safe_mask_computes_what_xarray_does(tmp_path):
    """The GPU path swaps xarray's NumPy-only CF mask for an array-module-agnostic
    one; on NumPy data both must give identical values."""
    from zarrgpu.xarray_backend import _device_safe_cf_decoding

    rng = np.random.default_rng(1)
    t2m = rng.normal(280, 5, size=(3, 4, 6)).astype(np.float32)
    t2m[0, 1, 2] = np.nan
    ds = xr.Dataset({"t2m": (("time", "lat", "lon"), t2m), "n": (("lat", "lon"), rng.integers(0, 9, (4, 6)))})
    ds["t2m"].encoding.update({"dtype": "int16", "scale_factor": 0.01, "add_offset": 280.0, "_FillValue": -32768})
    ds["n"].encoding.update({"_FillValue": 3})
    path = tmp_path / "mask.zarr"
    ds.to_zarr(path, zarr_format=3, consolidated=True)
    reference = _open_mine(path).load()
    swapped = _open_mine(path)
    for var in swapped.variables.values():
        _device_safe_cf_decoding(var._data)
    xr.testing.assert_identical(swapped.load(), reference)


def test_groups_and_consolidated_flag(tmp_path):
    ds = xr.Dataset({"a": (("x",), np.arange(4.0))}, coords={"x": np.arange(4)})
    ds.to_zarr(tmp_path / "g.zarr", group="inner", zarr_format=3, consolidated=False)
    mine = _open_mine(tmp_path / "g.zarr", group="inner")
    xr.testing.assert_identical(mine.load(), _open_zarr(tmp_path / "g.zarr", group="inner").load())
    with pytest.raises(ValueError, match="consolidated"):
        _open_mine(tmp_path / "g.zarr", group="inner", consolidated=True)


def test_guess_can_open(tmp_path):
    from zarrgpu.xarray_backend import ZarrgpuBackendEntrypoint

    ep = ZarrgpuBackendEntrypoint()
    xr.Dataset({"a": ("x", [1, 2])}).to_zarr(tmp_path / "s.zarr", zarr_format=2)
    xr.Dataset({"a": ("x", [1, 2])}).to_zarr(tmp_path / "t", zarr_format=3)
    assert ep.guess_can_open(tmp_path / "s.zarr")
    assert ep.guess_can_open(str(tmp_path / "t"))
    assert not ep.guess_can_open(tmp_path)
    (tmp_path / "f.nc").write_bytes(b"CDF")
    assert not ep.guess_can_open(tmp_path / "f.nc")
    assert not ep.guess_can_open(object())
