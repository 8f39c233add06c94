"""DeviceArray's DLPack export, exercised on host memory (no GPU needed): NumPy is the consumer."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")
from zarrgpu import _zarrgpu  # noqa: E402


def _host(shape=(3, 4), dtype="float32"):
    a = zarrgpu.DeviceArray._host_empty(list(shape), dtype)
    np.from_dlpack(a)[...] = np.arange(int(np.prod(shape))).reshape(shape).astype(a.dtype)
    return a


def test_numpy_from_dlpack_is_zero_copy():
    a = _host()
    n = np.from_dlpack(a)
    assert n.ctypes.data == a.ptr
    assert n.shape == a.shape == (3, 4) and n.dtype == np.float32
    n[0, 0] = 42
    assert np.from_dlpack(a)[0, 0] == 42
    assert a.__dlpack_device__() == (1, 0)
    assert a.device == "cpu" and a.nbytes == 48 and a.ndim == 2 and a.size == 12 and len(a) == 3


def test_memory_outlives_the_device_array():
    a = _host()
    ptr = a.ptr
    n = np.from_dlpack(a)
    del a
    gc.collect()
    assert n.ctypes.data == ptr
    np.testing.assert_array_equal(n[1], [4, 5, 6, 7])


@pytest.mark.parametrize("max_version,name", [(None, "dltensor"), ((0, 8), "dltensor"), ((1, 0), "dltensor_versioned"),
                                              ((1, 3), "dltensor_versioned")])
def test_capsule_kind_follows_max_version(max_version, name):
    a = _host()
    cap = a.__dlpack__(max_version=max_version)
    assert type(cap).__name__ == "PyCapsule"
    assert f'"{name}"' in repr(cap)
    info = _zarrgpu._inspect_dlpack(cap)
    assert info["data"] == a.ptr and info["shape"] == (3, 4) and info["strides"] is None
    assert (info["code"], info["bits"], info["lanes"]) == (2, 32, 1)
    assert info["device_type"] == 1 and not info["read_only"]
    del cap  # unconsumed: our capsule destructor frees the export context


@pytest.mark.parametrize("dtype,code_bits", [("bool", (6, 8)), ("int8", (0, 8)), ("uint16", (1, 16)),
                                             ("int64", (0, 64)), ("float16", (2, 16)), ("bfloat16", (4, 16)),
                                             ("float64", (2, 64)), ("complex64", (5, 64)), ("complex128", (5, 128))])
def test_dlpack_data_types(dtype, code_bits):
    a = zarrgpu.DeviceArray._host_empty([2], dtype)
    info = _zarrgpu._inspect_dlpack(a.__dlpack__(max_version=(1, 0)))
    assert (info["code"], info["bits"]) == code_bits


def test_zero_dim_and_empty_arrays():
    s = zarrgpu.DeviceArray._host_empty([], "float64")
    assert np.from_dlpack(s).shape == ()
    e = zarrgpu.DeviceArray._host_empty([0, 5], "int32")
    assert np.from_dlpack(e).shape == (0, 5)


def test_dlpack_keywords():
    a = _host()
    with pytest.raises(BufferError):
        a.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(2, 0))
    a.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(TypeError):
        a.__dlpack__(None)  # keyword-only, as the Array API standard says


def test_host_array_has_no_cuda_array_interface():
    a = _host()
    assert not hasattr(a, "__cuda_array_interface__")
    assert a.stream is None
    np.testing.assert_array_equal(a.get(), np.arange(12, dtype=np.float32).reshape(3, 4))
    assert "DeviceArray(shape=(3, 4), dtype=float32, device=cpu)" == repr(a)


def test_no_leak_of_unconsumed_capsules():
    a = _host((256, 256))
    before = sys.getrefcount(a)
    for _ in range(1000):
        a.__dlpack__(max_version=(1, 0))
        a.__dlpack__()
    assert sys.getrefcount(a) == before


def test_read_into_a_dlpack_host_buffer(tmp_path):
    z = zarrgpu.create_array(tmp_path / "d.zarr", shape=(3, 4), dtype="float32", chunks=(2, 2))
    z[...] = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = zarrgpu.DeviceArray._host_empty([2, 4], "float32")
    assert z.read(np.s_[1:], out=out) is out
    np.testing.assert_array_equal(np.from_dlpack(out), np.arange(4, 12, dtype=np.float32).reshape(2, 4))
    with pytest.raises(zarrgpu.InvalidArgumentError, match="shape"):
        z.read(np.s_[:], out=out)
