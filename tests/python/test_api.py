"""The Python array API against the corpus, zarr-python 3 and TensorStore (CPU only)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")

from _zarrgpu_corpus import expected_arrays, requires_corpus  # noqa: E402

ARRAYS = expected_arrays()
IDS = [name for name, _ in ARRAYS]
ENTRIES = [entry for _, entry in ARRAYS]


def _open(entry):
    return zarrgpu.open(entry["store"], path=entry["array"])


def _native(a: np.ndarray) -> np.ndarray:
    """zarrgpu returns native byte order (documented); references may be big-endian."""
    a = np.asarray(a)
    return a.astype(a.dtype.newbyteorder("=")) if a.dtype.byteorder == ">" else a


def _tensorstore_read(entry) -> np.ndarray:
    """The whole array as TensorStore reads it; zarr-python where TensorStore lacks the
    codec (its zarr v2 driver has no filters and no lz4 compressor)."""
    ts = pytest.importorskip("tensorstore")
    path = entry["store"] + ("/" + entry["array"] if entry["array"] else "")
    driver = "zarr3" if "/v3_" in entry["store"] else "zarr"
    try:
        t = ts.open({"driver": driver, "kvstore": {"driver": "file", "path": path}}, read=True).result()
    except ValueError as e:
        if "not supported" not in str(e) and "not registered" not in str(e):
            raise
        return _native(_zarr_python(entry)[...])
    return _native(np.asarray(t.read().result()))


def _zarr_python(entry):
    zarr = pytest.importorskip("zarr")
    if entry["dtype"] == "bfloat16":
        pytest.skip("zarr-python 3.1 has no bfloat16 data type")
    return zarr.open_array(entry["store"], path=entry["array"] or None, mode="r")


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bitwise equality, shapes and dtypes included (NaN == NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@requires_corpus
@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_corpus_sha256(entry):
    a = _open(entry)
    data = a[...]
    assert isinstance(data, np.ndarray)
    assert data.shape == tuple(entry["shape"])
    assert hashlib.sha256(np.ascontiguousarray(data).tobytes()).hexdigest() == entry["sha256"]


@requires_corpus
@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_metadata_matches_zarr_python(entry):
    a = _open(entry)
    z = _zarr_python(entry)
    assert a.shape == z.shape
    assert a.ndim == z.ndim
    assert a.dtype == z.dtype.newbyteorder("=")  # reads are native byte order
    assert a.chunks == z.chunks
    assert a.shards == z.shards
    assert a.zarr_format == z.metadata.zarr_format
    assert a.attrs == dict(z.attrs)
    assert a.nbytes == z.nbytes
    if z.fill_value is None:
        assert a.fill_value is None
    else:
        assert a.fill_value.dtype == np.asarray(z.fill_value).dtype
        np.testing.assert_array_equal(a.fill_value, z.fill_value)
    if a.zarr_format == 3:
        assert a.dimension_names == z.metadata.dimension_names
        assert [c["name"] for c in a.codecs] == [c.to_dict()["name"] for c in z.metadata.codecs]


@requires_corpus
@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_values_match_tensorstore_and_zarr_python(entry):
    a = _open(entry)
    ref = _tensorstore_read(entry)
    mine = a[...]
    if entry["dtype"] == "bfloat16":
        assert mine.dtype.name == "bfloat16"
        assert mine.view(np.uint16).tobytes() == ref.view(np.uint16).tobytes()
        return
    assert _same(mine, ref)
    assert _same(mine, _native(_zarr_python(entry)[...]))


def _selections(shape):
    """Basic-indexing keys that cover ints, negative ints, steps, negative steps, Ellipsis, empties."""
    if not shape:
        return [(), Ellipsis]
    n0 = shape[0]
    keys = [
        0, -1, n0 // 2, slice(None), slice(1, None), slice(None, -1), slice(None, None, 2),
        slice(n0 - 1, 0, -3), slice(None, None, -1), slice(-2, None, -1), slice(5, 3), slice(3, 3, -1),
        (Ellipsis, 0), (Ellipsis, slice(None, None, -2)),
    ]
    if len(shape) >= 2:
        n1 = shape[1]
        keys += [(slice(1, n0 - 1, 3), slice(None, None, -2)), (-1, slice(n1 // 3, None, 5)),
                 (slice(None, None, -1), -1), (0, Ellipsis, 1)]
    if len(shape) >= 3:
        keys += [(1, slice(None, None, 2), slice(None, None, -4)), (Ellipsis, 2, slice(1, 3))]
    return keys


@requires_corpus
@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_selections_match_numpy_on_tensorstore(entry):
    a = _open(entry)
    ref = _tensorstore_read(entry)
    for key in _selections(a.shape):
        got = a[key]
        want = ref[key]
        if entry["dtype"] == "bfloat16":
            got, want = got.view(np.uint16), want.view(np.uint16)
        assert _same(got, np.asarray(want, order="C")), f"key {key!r}"


@requires_corpus
@pytest.mark.parametrize("entry", [e for e in ENTRIES if len(e["shape"]) >= 2 and e["dtype"] != "bfloat16"],
                         ids=[i for i, e in ARRAYS if len(e["shape"]) >= 2 and e["dtype"] != "bfloat16"])
def test_positive_step_selections_match_zarr_python(entry):
    a = _open(entry)
    z = _zarr_python(entry)
    n0, n1 = a.shape[:2]
    for key in [(slice(1, n0, 2), slice(0, n1 - 1)), (n0 - 1,), (slice(None), 1), (slice(2, 2),)]:
        assert _same(a[key], _native(z[key])), f"key {key!r}"


@requires_corpus
def test_zero_dim_array():
    entry = next(e for e in ENTRIES if e["shape"] == [])
    a = _open(entry)
    assert a.shape == () and a.ndim == 0
    assert a[()].shape == () and a[...].shape == ()
    with pytest.raises(IndexError):
        a[0]
    with pytest.raises(TypeError):
        len(a)


@requires_corpus
def test_read_into_numpy_out_and_errors():
    entry = next(e for e in ENTRIES if len(e["shape"]) == 2 and e["dtype"] == "<f4")
    a = _open(entry)
    out = np.empty((2, a.shape[1]), dtype=a.dtype)
    assert a.read(np.s_[3:5], out=out) is out
    np.testing.assert_array_equal(out, a[3:5])
    with pytest.raises(zarrgpu.InvalidArgumentError, match="shape"):
        a.read(np.s_[3:6], out=out)
    with pytest.raises(zarrgpu.InvalidArgumentError, match="dtype"):
        a.read(np.s_[3:5], out=np.empty((2, a.shape[1]), dtype=np.float64))
    with pytest.raises(zarrgpu.InvalidArgumentError, match="C-contiguous"):
        a.read(np.s_[3:5, :3], out=np.empty((3, 2), dtype=a.dtype).T)


@requires_corpus
def test_read_async_returns_future():
    import concurrent.futures

    entry = next(e for e in ENTRIES if len(e["shape"]) == 3)
    a = _open(entry)
    futures = [a.read_async(np.s_[i]) for i in range(min(4, a.shape[0]))]
    assert all(isinstance(f, concurrent.futures.Future) for f in futures)
    for i, f in enumerate(futures):
        np.testing.assert_array_equal(f.result(timeout=60), a[i])
    with pytest.raises(IndexError):
        a.read_async(a.shape[0])  # checked before it is queued


@requires_corpus
def test_indexing_errors_are_numpy_like():
    entry = next(e for e in ENTRIES if len(e["shape"]) == 2)
    a = _open(entry)
    with pytest.raises(IndexError, match="out of bounds"):
        a[a.shape[0]]
    with pytest.raises(IndexError, match="out of bounds"):
        a[0, -a.shape[1] - 1]
    with pytest.raises(IndexError, match="too many indices"):
        a[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        a[..., ...]
    with pytest.raises(ValueError):
        a[::0]
    with pytest.raises(TypeError, match="integers, slices"):
        a[{0, 1}]
    with pytest.raises(TypeError, match="oindex"):  # where NumPy's and orthogonal indexing differ
        a[[0, 1], 0]
    with pytest.raises(IndexError):
        a[None]
    assert isinstance(zarrgpu.BoundsError("x"), IndexError)


@requires_corpus
def test_cuda_read_without_gpu_is_a_device_error():
    if zarrgpu.cuda_available():
        pytest.skip("a GPU is present")
    entry = ENTRIES[0]
    with pytest.raises(zarrgpu.DeviceError):
        _open(entry).read(device="cuda")
    with pytest.raises(zarrgpu.InvalidArgumentError):
        _open(entry).read(device="tpu")


@requires_corpus
def test_group_api():
    entry = next(e for e in ENTRIES if "/" in e["array"])  # v2 group with a sub-group
    g = zarrgpu.open(entry["store"])
    assert isinstance(g, zarrgpu.Group)
    assert "sub" in g.member_names()
    sub = g["sub"]
    assert isinstance(sub, zarrgpu.Group)
    arr = g[entry["array"]]
    assert isinstance(arr, zarrgpu.Array)
    assert arr.shape == tuple(entry["shape"])
    assert entry["array"] in g.tree()
    assert dict(g.arrays())  # at least one direct array


def test_missing_store_is_not_found(tmp_path):
    with pytest.raises(zarrgpu.NotFoundError) as info:
        zarrgpu.open(tmp_path / "nope.zarr")
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, KeyError)
    assert info.value.kind == "not_found"
    assert "nope.zarr" in str(info.value)


def test_open_rejects_bad_mode(tmp_path):
    with pytest.raises(zarrgpu.InvalidArgumentError, match="mode"):
        zarrgpu.open(tmp_path, mode="x")
