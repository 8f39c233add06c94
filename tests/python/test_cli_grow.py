"""The command line side of issue 34: `cat --out -`, `convert --chunks` leaving 1-D
coordinates alone, `append`, `consolidate` and `--no-consolidated`."""

from __future__ import annotations

import io
import json
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

zarr = pytest.importorskip("zarr")
xr = pytest.importorskip("xarray")


def _era5(path, steps: int, start: str = "2000-01-01", fmt: int = 3, consolidated: bool = True):
    t = pd.date_range(start, periods=steps, freq="h")
    ds = xr.Dataset({"t2m": (("time", "lat"), np.arange(steps * 3, dtype="f4").reshape(steps, 3) + 250)},
                    coords={"time": t, "lat": [0.0, 10.0, 20.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds.to_zarr(path, zarr_format=fmt, consolidated=consolidated,
                   encoding={"t2m": {"chunks": (4, 3)},
                             "time": {"chunks": (steps,), "units": "hours since 2000-01-01", "dtype": "int64"}})
    return ds


def test_cat_out_dash_writes_npy_to_stdout(zarrgpu_bin, tmp_path):
    root = tmp_path / "s.zarr"
    _era5(root, 4)
    r = subprocess.run([str(zarrgpu_bin), "cat", root, "--array", "t2m", "--select", "1:3", "--out", "-"],
                       capture_output=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = np.load(io.BytesIO(r.stdout))
    np.testing.assert_array_equal(got, zarr.open_array(root / "t2m", mode="r")[1:3])
    assert not (tmp_path / "-").exists()


def test_convert_chunks_leave_coordinates_unless_named(run_zarrgpu, tmp_path):
    src = tmp_path / "src.zarr"
    _era5(src, 8)
    dst = tmp_path / "one_step.zarr"
    r = run_zarrgpu("convert", src, dst, "--chunks", "time=1", "--quiet")
    assert r.returncode == 0, r.stderr
    z = zarr.open_group(dst, mode="r")
    assert z["t2m"].chunks == (1, 3)
    assert z["time"].chunks == (8,)  # the 1-D coordinate keeps one chunk
    named = tmp_path / "named.zarr"
    r = run_zarrgpu("convert", src, named, "--chunks", "time=1;time:time=2", "--quiet")
    assert r.returncode == 0, r.stderr
    z = zarr.open_group(named, mode="r")
    assert z["t2m"].chunks == (1, 3) and z["time"].chunks == (2,)
    by_path = tmp_path / "by_path.zarr"
    r = run_zarrgpu("convert", src, by_path, "--chunks", "t2m:time=2", "--shard", "t2m:time=4", "--quiet")
    assert r.returncode == 0, r.stderr
    z = zarr.open_group(by_path, mode="r")
    assert z["t2m"].chunks == (2, 3) and z["t2m"].shards == (4, 3) and z["time"].chunks == (8,)
    r = run_zarrgpu("convert", src, tmp_path / "typo.zarr", "--chunks", "t2n:time=2")
    assert r.returncode == 1 and "t2n" in r.stderr


@pytest.mark.parametrize("fmt", [2, 3])
def test_append_command_grows_a_time_series(run_zarrgpu, tmp_path, fmt):
    dst, src = tmp_path / "dst.zarr", tmp_path / "src.zarr"
    a = _era5(dst, 6, fmt=fmt)
    b = _era5(src, 3, start="2000-01-01T06", fmt=fmt)
    r = run_zarrgpu("append", src, dst, "--dim", "time", "--quiet")
    assert r.returncode == 0, r.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = xr.open_dataset(dst, engine="zarr", consolidated=True).load()
    xr.testing.assert_identical(got, xr.concat([a, b], dim="time"))
    r = run_zarrgpu("append", src, dst, "--dim", "level")
    assert r.returncode == 2 and "level" in r.stderr


def test_consolidate_command_and_no_consolidated(run_zarrgpu, tmp_path):
    root = tmp_path / "s.zarr"
    _era5(root, 4)
    z = zarr.open_group(root, mode="r+", use_consolidated=False)
    z["t2m"].append(np.zeros((2, 3), "f4"))
    info = json.loads(run_zarrgpu("info", root, "--json").stdout)
    own = json.loads(run_zarrgpu("info", root, "--json", "--no-consolidated").stdout)
    shape = lambda doc: next(n["shape"] for n in doc["nodes"] if n["path"].endswith("t2m"))
    assert shape(info) == [4, 3] and shape(own) == [6, 3]
    r = run_zarrgpu("consolidate", root)
    assert r.returncode == 0, r.stderr
    assert zarr.open_consolidated(root, zarr_format=3)["t2m"].shape == (6, 3)
    assert run_zarrgpu("consolidate", root / "t2m").returncode == 2
