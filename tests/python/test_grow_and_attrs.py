"""Growing stores and changing metadata through zarrgpu (issue 34, items 3 and 4):
resize/append (v2, v3, sharded), attributes that persist, mode="r" refusing writes,
consolidated metadata kept in step, and consolidated= on request."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import zarrgpu

zarr = pytest.importorskip("zarr")

LAYOUTS = {
    "v2": dict(zarr_format=2),
    "v3": dict(zarr_format=3),
    "v3_sharded": dict(zarr_format=3, shards=(4, 4)),
}


def _make(tmp_path, layout, shape=(3, 4)):
    root = tmp_path / "s.zarr"
    g = zarrgpu.create_group(root, zarr_format=LAYOUTS[layout]["zarr_format"])
    a = g.create_array("t2m", shape=shape, dtype="f4", chunks=(2, 2) if "sharded" in layout else (4, 4),
                       fill_value=np.nan, dimension_names=("time", "x"), **{k: v for k, v in LAYOUTS[layout].items()
                                                                          if k != "zarr_format"})
    data = np.arange(np.prod(shape), dtype="f4").reshape(shape)
    a[...] = data
    return root, a, data


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_append_matches_zarr_python(tmp_path, layout):
    root, a, data = _make(tmp_path, layout)
    more = np.arange(100, 120, dtype="f4").reshape(5, 4)
    assert a.append(more) == (8, 4)
    want = np.concatenate([data, more])
    np.testing.assert_array_equal(a[...], want)
    np.testing.assert_array_equal(zarrgpu.open(root / "t2m")[...], want)
    np.testing.assert_array_equal(zarr.open_array(root / "t2m", mode="r")[...], want)
    # Along the other axis too.
    col = np.full((8, 1), 7, dtype="f4")
    a.append(col, axis=1)
    np.testing.assert_array_equal(zarr.open_array(root / "t2m", mode="r")[...], np.concatenate([want, col], axis=1))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_resize_like_zarr_python(tmp_path, layout):
    root, a, data = _make(tmp_path, layout, shape=(12, 4))
    a.resize((5, 4))
    assert zarr.open_array(root / "t2m", mode="r").shape == (5, 4)
    a.resize(12, 4)
    got = zarr.open_array(root / "t2m", mode="r")[...]
    np.testing.assert_array_equal(got[:5], data[:5])
    # Rows of chunks wholly outside (5, 4) were erased: they read as the fill value.
    assert np.isnan(got[8:]).all()
    with pytest.raises(zarrgpu.InvalidArgumentError):
        a.append(np.zeros((1, 3), "f4"))


@pytest.mark.parametrize("fmt", [2, 3])
def test_attributes_persist_and_read_only_refuses(tmp_path, fmt):
    root = tmp_path / "s.zarr"
    g = zarrgpu.create_group(root, zarr_format=fmt)
    a = g.create_array("t2m", shape=(2,), dtype="f4", dimension_names=("time",))
    a.attrs["units"] = "K"
    a.attrs.update({"long_name": "2 metre temperature", "scale": 2})
    del a.attrs["scale"]
    g.attrs["title"] = "ERA5"
    z = zarr.open_group(root, mode="r")
    assert z["t2m"].attrs["units"] == "K"
    assert z["t2m"].attrs["long_name"] == "2 metre temperature"
    assert "scale" not in z["t2m"].attrs
    assert z.attrs["title"] == "ERA5"
    if fmt == 2:
        assert z["t2m"].attrs["_ARRAY_DIMENSIONS"] == ["time"]
    assert zarrgpu.open(root / "t2m").attrs["units"] == "K"

    ro = zarrgpu.open_group(root, mode="r")
    with pytest.raises(zarrgpu.ReadOnlyError):
        ro.attrs["x"] = 1
    with pytest.raises(zarrgpu.ReadOnlyError):
        ro["t2m"].attrs["x"] = 1
    with pytest.raises(zarrgpu.ReadOnlyError):
        del ro["t2m"].attrs["units"]
    with pytest.raises(zarrgpu.ReadOnlyError):
        ro.create_array("b", shape=(1,), dtype="i4")
    with pytest.raises(zarrgpu.ReadOnlyError):
        ro.create_group("sub")
    with pytest.raises(zarrgpu.ReadOnlyError):
        ro["t2m"].resize((4,))
    with pytest.raises(zarrgpu.ReadOnlyError):
        ro["t2m"].append(np.zeros(1, "f4"))
    assert not (root / "b").exists() and not (root / "sub").exists()
    assert zarr.open_group(root, mode="r")["t2m"].shape == (2,)


def _xr_dataset(steps: int):
    import pandas as pd
    xr = pytest.importorskip("xarray")
    t = pd.date_range("2000-01-01", periods=steps, freq="h")
    return xr.Dataset({"t2m": (("time", "x"), np.arange(steps * 3, dtype="f4").reshape(steps, 3))},
                      coords={"time": t, "x": [0.0, 1.0, 2.0]})


@pytest.mark.parametrize("fmt", [2, 3])
def test_consolidated_on_request_after_zarr_python_appends(tmp_path, fmt):
    """zarr-python appends two steps without reconsolidating: consolidated=None (default) sees
    the consolidated 4 steps, as zarr-python does; consolidated=False sees 6."""
    xr = pytest.importorskip("xarray")
    root = tmp_path / "era5.zarr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _xr_dataset(4).to_zarr(root, zarr_format=fmt, consolidated=True)
        z = zarr.open_group(root, mode="r+", use_consolidated=False)
        z["t2m"].append(np.ones((2, 3), "f4"))
        z["time"].append(np.array([4, 5], dtype=z["time"].dtype))
    assert zarrgpu.open(root)["t2m"].shape == (4, 3)
    assert zarrgpu.open(root, consolidated=False)["t2m"].shape == (6, 3)
    assert zarrgpu.open_group(root, consolidated=False).tree()["t2m"]["shape"] == [6, 3]
    assert xr.open_dataset(root, engine="zarrgpu", consolidated=False).sizes["time"] == 6
    assert xr.open_dataset(root, engine="zarrgpu").sizes["time"] == 4
    zarrgpu.consolidate_metadata(root)
    assert xr.open_dataset(root, engine="zarrgpu", consolidated=True).sizes["time"] == 6
    assert xr.open_dataset(root, engine="zarr", consolidated=True).sizes["time"] == 6


def test_consolidated_true_requires_it(tmp_path):
    xr = pytest.importorskip("xarray")
    root = tmp_path / "plain.zarr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _xr_dataset(2).to_zarr(root, zarr_format=3, consolidated=False)
    with pytest.raises(zarrgpu.InvalidArgumentError, match="consolidated"):
        zarrgpu.open(root, consolidated=True)
    with pytest.raises(ValueError, match="consolidated"):
        xr.open_dataset(root, engine="zarrgpu", consolidated=True)
    assert xr.open_dataset(root, engine="zarrgpu", consolidated=False).sizes["time"] == 2


@pytest.mark.parametrize("fmt", [2, 3])
def test_arrays_created_in_a_consolidated_store_are_visible(tmp_path, fmt):
    xr = pytest.importorskip("xarray")
    root = tmp_path / "era5.zarr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _xr_dataset(4).to_zarr(root, zarr_format=fmt, consolidated=True)
    g = zarrgpu.open_group(root, mode="r+")
    assert g.is_consolidated
    tp = g.create_array("tp", shape=(4, 3), dtype="f4", fill_value=np.nan, dimension_names=("time", "x"))
    assert "tp" in g and "tp" in g.member_names()
    tp[...] = np.ones((4, 3), "f4")
    tp.attrs["units"] = "m"
    g["t2m"].append(np.zeros((1, 3), "f4"))
    g["time"].append(np.array([4], dtype=g["time"].dtype))
    tp.append(np.full((1, 3), 2, "f4"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for engine in ("zarr", "zarrgpu"):
            ds = xr.open_dataset(root, engine=engine, consolidated=True)
            assert "tp" in ds and ds["tp"].attrs["units"] == "m"
            assert ds.sizes["time"] == 5
    assert "tp" in zarr.open_consolidated(root, zarr_format=fmt)


def test_consolidate_metadata_writes_what_zarr_python_reads(tmp_path):
    root = tmp_path / "s.zarr"
    g = zarrgpu.create_group(root, zarr_format=3)
    g.create_array("a", shape=(3,), dtype="i4")
    g.create_group("sub").create_array("b", shape=(2, 2), dtype="f8")
    assert not g.is_consolidated
    c = zarrgpu.consolidate_metadata(root)
    assert c.is_consolidated
    assert set(c.tree()) == {"a", "sub", "sub/b"}
    z = zarr.open_consolidated(root, zarr_format=3)
    assert z["sub/b"].shape == (2, 2)
    doc = json.loads((root / "zarr.json").read_text())
    assert set(doc["consolidated_metadata"]["metadata"]) == {"a", "sub", "sub/b"}
