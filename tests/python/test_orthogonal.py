"""Lists of positions (orthogonal indexing, zarr-python's ``oindex``) against NumPy and zarr-python."""

from __future__ import annotations

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")


def _orthogonal(data: np.ndarray, key: tuple) -> np.ndarray:
    """NumPy's result of indexing each dimension independently (np.ix_ for the lists)."""
    out = data
    for axis in reversed(range(len(key))):
        k = key[axis]
        if isinstance(k, (list, np.ndarray)):
            out = np.take(out, np.asarray(k, dtype=np.int64), axis=axis)
        elif isinstance(k, slice):
            out = out[(slice(None),) * axis + (k,)]
        else:
            out = np.take(out, k, axis=axis)
    return out


@pytest.fixture(params=[None, (4, 5, 6)], ids=["plain", "sharded"])
def store(tmp_path, request):
    data = np.arange(12 * 10 * 6, dtype=np.float32).reshape(12, 10, 6)
    shards = request.param
    chunks = (2, 5, 3) if shards else (3, 4, 6)
    a = zarrgpu.create_array(tmp_path / "a.zarr", shape=data.shape, dtype="f4", chunks=chunks, shards=shards,
                             zarr_format=3)
    a[...] = data
    return zarrgpu.open(tmp_path / "a.zarr"), data


KEYS = [
    ([0, 3, 4, 11], slice(None), slice(None)),            # sorted, one chunk visited per run
    ([11, 0, 5, 5, -1], slice(2, 9, 3), [5, 0]),           # unsorted, repeats, negatives, two lists
    (np.array([7, 6, 2], dtype=np.int32), 3, slice(None, None, -1)),
    ([], slice(None), [1]),                                  # an empty list
    (slice(1, 12, 2), [9, 1, 2, 3], 0),
]


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
def test_read_matches_numpy_orthogonal(store, key):
    a, data = store
    want = _orthogonal(data, key)
    got = a.read(key)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a.oindex[key], want)
    out = np.empty_like(want)
    assert a.read(key, out=out) is out
    np.testing.assert_array_equal(out, want)


def test_matches_zarr_python_oindex(store, tmp_path):
    zarr = pytest.importorskip("zarr")
    a, data = store
    z = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")
    key = ([9, 1, 1, 4], slice(None), [2, 0])
    np.testing.assert_array_equal(a.oindex[key], z.oindex[key])


def test_getitem_takes_one_list_with_slices_like_numpy(store):
    a, data = store
    np.testing.assert_array_equal(a[[5, 1, 5]], data[[5, 1, 5]])
    np.testing.assert_array_equal(a[:, [0, -1], 1:3], data[:, [0, -1], 1:3])
    for key in [([1, 2], 0), ([1, 2], slice(None), [0, 1])]:  # NumPy would broadcast these lists
        with pytest.raises(TypeError, match="oindex"):
            a[key]


def test_list_errors(store):
    a, _ = store
    with pytest.raises(IndexError, match="out of bounds"):
        a.read(([12],))
    with pytest.raises(IndexError, match="out of bounds"):
        a.read(([-13],))
    with pytest.raises(IndexError, match="1-D"):
        a.read((np.zeros((2, 2), dtype=int),))
    with pytest.raises(IndexError, match="integers"):
        a.read(([0.5],))
    with pytest.raises(TypeError, match="boolean"):
        a.read((np.ones(12, dtype=bool),))


def test_writes_refuse_lists(tmp_path):
    a = zarrgpu.create_array(tmp_path / "w.zarr", shape=(4, 4), dtype="i4", chunks=(2, 2))
    with pytest.raises(zarrgpu.UnsupportedError, match="lists of positions"):
        a[[0, 3]] = 1
