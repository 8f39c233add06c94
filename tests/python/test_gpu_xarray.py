"""GPU: xr.open_dataset(engine="zarrgpu", device="cuda") gives CuPy-backed data variables."""

from __future__ import annotations

import numpy as np
import pytest

from _zarrgpu_gpu import requires_gpu

xr = pytest.importorskip("xarray")
pytestmark = requires_gpu


@pytest.fixture
def dataset(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(1)
    ds = xr.Dataset(
        {"t2m": (("time", "lat", "lon"), rng.normal(280, 5, (6, 10, 12)).astype(np.float32), {"units": "K"}),
         "packed": (("lat", "lon"), rng.normal(0, 1, (10, 12)).astype(np.float32))},
        coords={"time": pd.date_range("2000-01-01", periods=6), "lat": np.linspace(-45, 45, 10),
                "lon": np.arange(12.0)},
    )
    ds["packed"].encoding.update({"dtype": "int16", "scale_factor": 0.001, "_FillValue": -32768})
    path = tmp_path / "era.zarr"
    ds.to_zarr(path, zarr_format=3, consolidated=True)
    return path


def test_cupy_backed_and_equal_to_cpu(dataset):
    cp = pytest.importorskip("cupy")
    gpu = xr.open_dataset(dataset, engine="zarrgpu", device="cuda").load()
    cpu = xr.open_dataset(dataset, engine="zarrgpu", device="cpu").load()
    assert isinstance(gpu.t2m.data, cp.ndarray)
    assert isinstance(gpu.lat.data, np.ndarray) and isinstance(gpu.time.data, np.ndarray)  # indexes stay on host
    np.testing.assert_array_equal(cp.asnumpy(gpu.t2m.data), cpu.t2m.values)
    np.testing.assert_allclose(cp.asnumpy(gpu.packed.data), cpu.packed.values)
    assert gpu.attrs == cpu.attrs and gpu.t2m.encoding["chunks"] == cpu.t2m.encoding["chunks"]


def test_operations_on_the_gpu(dataset):
    cp = pytest.importorskip("cupy")
    gpu = xr.open_dataset(dataset, engine="zarrgpu", device="cuda")
    cpu = xr.open_dataset(dataset, engine="zarrgpu", device="cpu")
    m = gpu.t2m.mean("time")
    assert isinstance(m.data, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(m.data), cpu.t2m.mean("time").values, rtol=1e-6)
    sel = gpu.t2m.isel(lat=slice(2, 5), lon=[0, 3])
    np.testing.assert_array_equal(cp.asnumpy(sel.data), cpu.t2m.isel(lat=slice(2, 5), lon=[0, 3]).values)
    diff = (gpu.t2m - 273.15) * 2
    np.testing.assert_allclose(cp.asnumpy(diff.data), ((cpu.t2m - 273.15) * 2).values, rtol=1e-6)
    by_time = gpu.t2m.sel(time="2000-01-03")
    np.testing.assert_array_equal(cp.asnumpy(by_time.data), cpu.t2m.sel(time="2000-01-03").values)
