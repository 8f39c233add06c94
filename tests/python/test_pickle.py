"""Pickling: Arrays, Groups, host results and xarray datasets opened with engine="zarrgpu"
(lazy, with Dask chunks, loaded) travel to other processes by location and options, and
re-open there: dask.distributed worker processes and PyTorch DataLoader workers (spawn)."""

from __future__ import annotations

import copy
import os
import pickle
import warnings

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")
xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")

from _pickle_workers import RowsDataset, worker_reads  # noqa: E402

PROTOCOLS = range(2, pickle.HIGHEST_PROTOCOL + 1)


def _roundtrip(obj, protocol=pickle.HIGHEST_PROTOCOL):
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


@pytest.fixture
def array_store(tmp_path):
    """A v3 array at a nested path, with two chunks written and the rest fill."""
    url = str(tmp_path / "a.zarr")
    zarrgpu.create_group(url)
    zarrgpu.create_group(url, "g")
    a = zarrgpu.create_array(url, "g/x", shape=(6, 5), dtype="float32", chunks=(2, 5), fill_value=-1,
                             dimension_names=("y", "x"), attrs={"units": "K"})
    a[0:4] = np.arange(20, dtype=np.float32).reshape(4, 5)
    return url


def _dataset() -> xr.Dataset:
    rng = np.random.default_rng(7)
    return xr.Dataset(
        {"t": (("time", "y", "x"), rng.standard_normal((8, 6, 5)).astype("float32"), {"units": "K"}),
         "q": (("y", "x"), rng.integers(0, 100, (6, 5)).astype("int16"))},
        coords={"time": np.arange(8), "y": np.linspace(0, 1, 6), "x": np.arange(5) * 2.0},
        attrs={"title": "pickle"},
    )


@pytest.fixture(params=[2, 3], ids=["v2", "v3"])
def dataset_store(tmp_path, request):
    path = str(tmp_path / f"ds{request.param}.zarr")
    _dataset().to_zarr(path, zarr_format=request.param, encoding={"t": {"chunks": (2, 6, 5)}})
    return path


def _open_zarr(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return xr.open_dataset(path, engine="zarr", **kw)


# ---- Array, Group, results ---------------------------------------------------------------
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_array_pickles_as_its_location_and_reads_the_same(array_store, protocol):
    a = zarrgpu.open(array_store, path="g/x")
    b = _roundtrip(a, protocol)
    assert isinstance(b, zarrgpu.Array)
    assert (b.store, b.path, b.read_only) == (a.store, "g/x", True)
    assert (b.shape, b.dtype, b.chunks, b.attrs, b.dimension_names) == (a.shape, a.dtype, a.chunks, a.attrs,
                                                                         a.dimension_names)
    np.testing.assert_array_equal(b[...], a[...])
    # Small: the location, not the data.
    assert len(pickle.dumps(a, protocol=protocol)) < 400


def test_array_keeps_its_mode(array_store):
    a = zarrgpu.open(array_store, mode="r+", path="g/x")
    b = _roundtrip(a)
    assert not b.read_only
    b[5] = 7.0
    np.testing.assert_array_equal(zarrgpu.open(array_store, path="g/x")[5], np.full(5, 7.0, np.float32))
    with pytest.raises(zarrgpu.ReadOnlyError):
        _roundtrip(zarrgpu.open(array_store, path="g/x"))[5] = 1.0


def test_unpickled_array_sees_the_store_as_it_is_now(array_store):
    """Re-opened by location (as zarr-python and xarray's zarr store): writes made since show."""
    blob = pickle.dumps(zarrgpu.open(array_store, path="g/x"))
    zarrgpu.open(array_store, mode="r+", path="g/x")[4:6] = 3.0
    np.testing.assert_array_equal(pickle.loads(blob)[4:6], np.full((2, 5), 3.0, np.float32))


def test_memory_store_array_unpickles_in_the_same_process():
    a = zarrgpu.create_array("memory://test-pickle", shape=(4,), dtype="int32", overwrite=True)
    a[...] = np.arange(4, dtype=np.int32)
    b = _roundtrip(a)
    assert b.store == "memory://test-pickle"
    np.testing.assert_array_equal(b[...], np.arange(4, dtype=np.int32))


def test_copy_and_deepcopy_give_working_arrays(array_store):
    a = zarrgpu.open(array_store, path="g/x")
    for b in (copy.copy(a), copy.deepcopy(a)):
        np.testing.assert_array_equal(b[...], a[...])


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_group_pickles_as_its_location(array_store, protocol):
    root = zarrgpu.open(array_store)
    g = root["g"]
    for original in (root, g):
        h = _roundtrip(original, protocol)
        assert isinstance(h, zarrgpu.Group)
        assert (h.store, h.path, h.zarr_format, h.member_names()) == (
            original.store, original.path, original.zarr_format, original.member_names())
    np.testing.assert_array_equal(_roundtrip(g)["x"][...], g["x"][...])


def test_consolidated_group_pickles(tmp_path):
    path = str(tmp_path / "c.zarr")
    _dataset().to_zarr(path, zarr_format=2, consolidated=True)
    g = zarrgpu.open(path)
    assert g.is_consolidated
    h = _roundtrip(g)
    assert h.is_consolidated and h.tree().keys() == g.tree().keys()
    # The open options travel too: consolidated=False reads each member's own metadata.
    plain = _roundtrip(zarrgpu.open_group(path, consolidated=False))
    assert not plain.is_consolidated and plain.member_names() == g.member_names()


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64", "bfloat16"])
def test_host_results_pickle(tmp_path, dtype):
    url = str(tmp_path / f"{dtype}.zarr")
    a = zarrgpu.create_array(url, shape=(3, 4), dtype=dtype, chunks=(2, 2))
    a[...] = np.arange(12).reshape(3, 4).astype(a.dtype)
    host = a[1:, ::2]
    back = _roundtrip(host)
    assert back.dtype == host.dtype and back.shape == host.shape
    assert back.tobytes() == host.tobytes()


def test_device_array_refuses_to_pickle_with_a_clear_error():
    # A host-memory DeviceArray stands in for GPU memory on machines without a GPU.
    d = zarrgpu.DeviceArray._host_empty([2, 3], "float32")
    with pytest.raises(TypeError, match=r"DeviceArray .* cannot be pickled.*zarrgpu\.Array.*\.get\(\)"):
        pickle.dumps(d)
    with pytest.raises(TypeError, match="cannot be pickled or copied"):
        copy.copy(d)


# ---- xarray -------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["lazy", "chunks", "loaded"])
def test_dataset_pickles_lazy_chunked_and_loaded(dataset_store, how):
    theirs = _open_zarr(dataset_store).load()
    kw = {"chunks": {}} if how == "chunks" else {}
    mine = xr.open_dataset(dataset_store, engine="zarrgpu", **kw)
    if how == "loaded":
        mine = mine.load()
    back = _roundtrip(mine)
    if how == "chunks":
        assert back["t"].chunks == ((2, 2, 2, 2), (6,), (5,))
    if how != "loaded":
        # Still lazy after the round trip: the data is read in this process, from the store.
        assert not back["t"].variable._in_memory
    xr.testing.assert_identical(back.load(), theirs)


def test_lazy_dataset_pickle_is_small_and_reads_the_store(tmp_path):
    path = str(tmp_path / "big.zarr")
    xr.Dataset({"v": (("a", "b"), np.arange(200 * 500, dtype="float64").reshape(200, 500))}).to_zarr(path)
    mine = xr.open_dataset(path, engine="zarrgpu")
    blob = pickle.dumps(mine)
    assert len(blob) < mine["v"].nbytes // 50  # the location, not the 800 kB of values
    xr.testing.assert_identical(pickle.loads(blob).load(), _open_zarr(path).load())


# ---- other processes ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # port already in use, etc.
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
    client = distributed.Client(cluster, timeout="60s")
    try:
        client.wait_for_workers(2, timeout=60)
        yield client
    finally:
        client.close()
        cluster.close()


def test_dask_distributed_worker_processes_reduce_a_zarrgpu_dataset(dataset_store, dask_client):
    worker_pids = set(dask_client.run(os.getpid).values())
    assert len(worker_pids) == 2 and os.getpid() not in worker_pids
    mine = xr.open_dataset(dataset_store, engine="zarrgpu", chunks={})
    theirs = _open_zarr(dataset_store, chunks={})
    assert mine["t"].data.npartitions == 4
    got = dask_client.compute(mine.mean("time"), sync=True)
    want = theirs.mean("time").compute(scheduler="synchronous")
    xr.testing.assert_allclose(got, want)
    got_sum = dask_client.compute(mine["t"].sum(), sync=True)
    np.testing.assert_allclose(got_sum.values, theirs["t"].sum().compute(scheduler="synchronous").values, rtol=1e-5)


def test_dask_distributed_workers_receive_an_array(array_store, dask_client):
    a = zarrgpu.open(array_store, path="g/x")
    futures = [dask_client.submit(worker_reads, a, i, pure=False) for i in range(6)]
    results = dask_client.gather(futures)
    assert all(pid != os.getpid() for pid, _ in results)
    np.testing.assert_array_equal(np.stack([row for _, row in results]), a[...])


def test_torch_dataloader_spawn_workers_read_an_array(array_store):
    torch = pytest.importorskip("torch")
    a = zarrgpu.open(array_store, path="g/x")
    loader = torch.utils.data.DataLoader(RowsDataset(a), batch_size=2, num_workers=2,
                                         multiprocessing_context="spawn", timeout=120)
    batches = list(loader)
    assert len(batches) == 3
    assert all(b.device.type == "cpu" and b.dtype == torch.float32 for b in batches)
    np.testing.assert_array_equal(torch.cat(batches).numpy(), a[...])
