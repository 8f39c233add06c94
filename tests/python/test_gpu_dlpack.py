"""GPU: DeviceArray zero-copy into CuPy, PyTorch and JAX; DLPack versions; stream semantics; out=."""

from __future__ import annotations

import numpy as np
import pytest

from _zarrgpu_gpu import make_store, requires_gpu

zarrgpu = pytest.importorskip("zarrgpu")
from zarrgpu import _zarrgpu  # noqa: E402

pytestmark = requires_gpu


@pytest.fixture
def store(tmp_path):
    return make_store(tmp_path / "g.zarr")


def test_device_read_values_and_interfaces(store):
    a, data = store
    d = a.read(np.s_[2:20:3, ::-2], device="cuda")
    assert isinstance(d, zarrgpu.DeviceArray)
    assert d.device == "cuda:0" and d.__dlpack_device__() == (2, 0)
    np.testing.assert_array_equal(d.get(), data[2:20:3, ::-2])
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["data"] == (d.ptr, False) and cai["strides"] is None
    assert cai["typestr"] == "<f4" and cai["shape"] == d.shape and cai["stream"] is None


def test_cupy_zero_copy(store):
    cp = pytest.importorskip("cupy")
    a, data = store
    d = a.read(device="cuda")
    x = cp.from_dlpack(d)
    assert x.data.ptr == d.ptr
    y = cp.asarray(d)  # __cuda_array_interface__
    assert y.data.ptr == d.ptr
    np.testing.assert_array_equal(cp.asnumpy(x), data)


def test_torch_zero_copy(store):
    torch = pytest.importorskip("torch")
    a, data = store
    d = a.read(device="cuda")
    t = torch.from_dlpack(d)
    assert t.data_ptr() == d.ptr and t.is_cuda
    np.testing.assert_array_equal(t.cpu().numpy(), data)
    del d  # the tensor keeps the memory alive
    torch.cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), data)


def test_jax_zero_copy(store):
    jax = pytest.importorskip("jax")
    if not any(dev.platform == "gpu" for dev in jax.devices()):
        pytest.skip("jax has no GPU backend here")
    a, data = store
    d = a.read(device="cuda")
    j = jax.dlpack.from_dlpack(d)
    assert j.unsafe_buffer_pointer() == d.ptr
    np.testing.assert_array_equal(np.asarray(j), data)


def test_versioned_and_legacy_capsules(store):
    a, _ = store
    d = a.read(device="cuda")
    v = d.__dlpack__(max_version=(1, 0), stream=-1)
    assert "dltensor_versioned" in repr(v)
    info = _zarrgpu._inspect_dlpack(v)
    assert info["device_type"] == 2 and info["data"] == d.ptr
    legacy = d.__dlpack__(stream=-1)
    assert '"dltensor"' in repr(legacy)
    with pytest.raises(ValueError):
        d.__dlpack__(stream=0)


def test_stream_semantics_with_torch(store):
    torch = pytest.importorskip("torch")
    a, data = store
    s = torch.cuda.Stream()
    d = a.read(device="cuda", stream=s)
    assert d.stream == s.cuda_stream
    assert d.__cuda_array_interface__["stream"] == s.cuda_stream
    consumer = torch.cuda.Stream()
    with torch.cuda.stream(consumer):
        t = torch.from_dlpack(d)  # torch passes its current stream: it waits on our event
        total = t.sum()
    consumer.synchronize()
    assert float(total) == pytest.approx(float(data.sum()))


def test_read_into_torch_and_cupy_out(store):
    torch = pytest.importorskip("torch")
    a, data = store
    out = torch.empty((24, 30), dtype=torch.float32, device="cuda")
    assert a.read(out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), data)
    with pytest.raises(zarrgpu.InvalidArgumentError, match="dtype"):
        a.read(out=torch.empty((24, 30), dtype=torch.float64, device="cuda"))
    with pytest.raises(zarrgpu.InvalidArgumentError, match="contiguous"):
        a.read(np.s_[:10, :10], out=torch.empty((10, 10), device="cuda").t()[:, :].contiguous().t())
    cp = pytest.importorskip("cupy")
    c = cp.empty((8, 30), dtype=cp.float32)
    a.read(np.s_[8:16], out=c)
    np.testing.assert_array_equal(cp.asnumpy(c), data[8:16])


def test_write_from_device_arrays(tmp_path, store):
    torch = pytest.importorskip("torch")
    a, data = store
    b = zarrgpu.create_array(tmp_path / "w.zarr", shape=data.shape, dtype="float32", chunks=(8, 8))
    b[...] = a.read(device="cuda")
    np.testing.assert_array_equal(b[...], data)
    b[0] = torch.full((30,), 5.0, device="cuda")
    assert (b[0] == 5).all()


def test_read_async_on_device(store):
    a, data = store
    f = a.read_async(np.s_[1], device="cuda")
    np.testing.assert_array_equal(f.result().get(), data[1])


def test_bfloat16_via_dlpack_only(tmp_path):
    torch = pytest.importorskip("torch")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = zarrgpu.create_array(tmp_path / "b.zarr", shape=(4, 4), dtype="bfloat16")
    a[...] = np.arange(16).reshape(4, 4).astype(ml_dtypes.bfloat16)
    d = a.read(device="cuda")
    assert not hasattr(d, "__cuda_array_interface__")
    t = torch.from_dlpack(d)
    assert t.dtype == torch.bfloat16 and t.data_ptr() == d.ptr
    np.testing.assert_array_equal(t.float().cpu().numpy(), np.arange(16).reshape(4, 4))
