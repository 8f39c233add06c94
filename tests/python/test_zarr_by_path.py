"""zarrgpu.zarr.CodecPipeline's by-path route (issue 37): reads of zarr-python arrays on a
LocalStore go to zarrgpu's own read pipeline in one call (store directory, array path, one
selection), which reads the files itself and places chunks straight into zarr-python's output.

Every read here is compared with zarr-python's own pipeline reading the same array: formats
2 and 3, sharded and not, every codec chain of test_zarr_pipeline.py, several data types and
fill values, missing chunks and shards, basic, strided, integer, orthogonal-list and block
selections. zarrgpu.zarr.read_routes() proves which route each read took; coordinate and
mask selections, F-order outputs, other stores (MemoryStore, a LocalStore subclass that
changes what `get` returns) and metadata that disagrees with the files go through the store
as before, with the same values."""

from __future__ import annotations

import asyncio
import warnings

import numcodecs
import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
import zarr.codecs as zc  # noqa: E402

import zarrgpu  # noqa: E402
import zarrgpu.zarr as zz  # noqa: E402

from test_zarr_pipeline import CASES, PIPELINE, V2_CHAINS, V3_CHAINS, sample  # noqa: E402

SHAPE, CHUNKS = (37, 23), (8, 10)

# Selections zarrgpu reads by path: (how to index, key), each one selection per dimension.
BY_PATH = [
    ("basic", np.s_[...]),
    ("basic", np.s_[3:29:3, 5:]),
    ("basic", np.s_[36, 22]),
    ("basic", np.s_[17, 2:21:4]),
    ("oindex", ([30, 1, 1, 20, 36], [0, 22])),  # unsorted, repeated
    ("oindex", ([2, 5, 11], 4)),  # a list with an integer: the integer's axis is dropped
    ("oindex", (np.s_[4:33:7], [21, 3, 9])),
    ("blocks", np.s_[1:3, 1]),
]
# Selections that are not one selection per dimension: through the store.
THROUGH_STORE = [
    ("vindex", ([30, 1, 20], [0, 22, 7])),
    ("mask", None),
]


def _index(a, how, key):
    if how == "basic":
        return a[key]
    if how == "oindex":
        return a.oindex[key]
    if how == "blocks":
        return a.blocks[key]
    if how == "vindex":
        return a.vindex[key]
    mask = np.zeros(a.shape, dtype=bool)
    mask[[0, 9, 36], [22, 3, 0]] = True
    return a.vindex[mask]


EMPTY = [("basic", np.s_[9:9, :])]  # zarr-python reads nothing: no route


def _write(path, zarr_format, name, dtype="int32", fill_value=0, **extra):
    kwargs = dict((V3_CHAINS if zarr_format == 3 else V2_CHAINS)[name])
    order = kwargs.pop("order", None)
    if zarr_format == 2 and name == "delta_zstd":
        dtype = "<i4"
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=SHAPE, chunks=CHUNKS, dtype=dtype,
                          zarr_format=zarr_format, fill_value=fill_value,
                          config={"order": order} if order else None, **kwargs, **extra)
    data = sample(dtype)
    a[...] = data
    a[8:16, 10:20] = fill_value if fill_value is not None else 0  # a chunk (an inner chunk) left unstored
    a[32:, 20:] = fill_value if fill_value is not None else 0
    return a


def _routes() -> dict:
    return zz.read_routes()


def _compare(directory, selections, **open_kwargs):
    """Reads each selection with zarr-python's own pipeline and with zarrgpu's; returns the
    routes zarrgpu's reads took."""
    reference = zarr.open_array(zarr.storage.LocalStore(directory, read_only=True), **open_kwargs)
    expected = [_index(reference, how, key) for how, key in selections]
    with zarr.config.set(PIPELINE), warnings.catch_warnings():
        warnings.simplefilter("error", zz.FallbackWarning)
        a = zarr.open_array(zarr.storage.LocalStore(directory, read_only=True), **open_kwargs)
        assert type(a._async_array.codec_pipeline) is zz.CodecPipeline
        before = _routes()
        for (how, key), want in zip(selections, expected, strict=True):
            got = _index(a, how, key)
            np.testing.assert_array_equal(got, want, err_msg=f"{how}[{key}]")
            assert np.asarray(got).dtype == np.asarray(want).dtype
        after = _routes()
    return {k: after.get(k, 0) - before.get(k, 0) for k in ("by_path", "through_store")}


@pytest.mark.parametrize("zarr_format,name", CASES)
def test_by_path_reads_equal_zarr_pythons_own_pipeline(tmp_path, zarr_format, name):
    path = tmp_path / "a.zarr"
    _write(path, zarr_format, name)
    routes = _compare(path, BY_PATH + THROUGH_STORE + EMPTY)
    assert routes == {"by_path": len(BY_PATH), "through_store": len(THROUGH_STORE)}


@pytest.mark.parametrize("dtype,fill_value", [
    ("bool", True), ("int8", -3), ("uint16", 7), ("int64", -(2**40)), ("uint64", 2**63 + 5),
    ("float16", 1.5), ("float32", float("nan")), ("float64", -0.25), ("complex64", 1 + 2j),
    ("complex128", 0j),
])
@pytest.mark.parametrize("zarr_format,name", [(3, "zstd"), (3, "sharded"), (2, "zstd"), (2, "blosc")])
def test_data_types_and_fill_values_equal_zarr_pythons(tmp_path, zarr_format, name, dtype, fill_value):
    path = tmp_path / "t.zarr"
    _write(path, zarr_format, name, dtype=dtype, fill_value=fill_value)
    assert _compare(path, BY_PATH)["by_path"] == len(BY_PATH)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_an_array_without_chunks_reads_as_its_fill_value(tmp_path, zarr_format):
    path = tmp_path / "empty.zarr"
    zarr.create_array(zarr.storage.LocalStore(path), shape=SHAPE, chunks=CHUNKS, dtype="float32",
                      zarr_format=zarr_format, fill_value=-7.5)
    assert _compare(path, BY_PATH)["by_path"] == len(BY_PATH)


def test_format_2_null_fill_value_reads_as_zarr_python_does(tmp_path):
    path = tmp_path / "null.zarr"
    _write(path, 2, "zstd", dtype="float64", fill_value=None)
    assert _compare(path, BY_PATH)["by_path"] == len(BY_PATH)


def test_sharded_reads_with_missing_shards_and_inner_chunks(tmp_path):
    path = tmp_path / "s.zarr"
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=(40, 30), chunks=(4, 5), shards=(8, 15),
                          dtype="uint32", fill_value=3, compressors=[zc.ZstdCodec(level=1)])
    a[...] = np.arange(1200, dtype="uint32").reshape(40, 30)
    a[0:8, 0:15] = 3  # a whole shard of fill values: not stored
    a[8:12, 15:20] = 3  # one inner chunk of a stored shard: absent from its index
    selections = BY_PATH[:2] + [("basic", np.s_[5:13, 12:22]), ("oindex", ([9, 39, 0], [16, 1, 29]))]
    assert _compare(path, selections)["by_path"] == len(selections)


@pytest.mark.parametrize("zarr_format,separator", [(2, "/"), (2, "."), (3, "."), (3, "/")])
def test_arrays_inside_groups_with_either_key_separator(tmp_path, zarr_format, separator):
    path = tmp_path / "g.zarr"
    root = zarr.open_group(zarr.storage.LocalStore(path), mode="w", zarr_format=zarr_format)
    extra = ({"chunk_key_encoding": {"name": "v2", "separator": separator}} if zarr_format == 2
             else {"chunk_key_encoding": {"name": "default", "separator": separator}})
    a = root.create_group("inner/deeper").create_array("x", shape=SHAPE, chunks=CHUNKS, dtype="int16",
                                                       fill_value=5, **extra)
    a[...] = sample("int16")
    a[0:8, 0:10] = 5
    assert _compare(path, BY_PATH, path="inner/deeper/x")["by_path"] == len(BY_PATH)


def test_zero_dimensional_arrays(tmp_path):
    for zarr_format in (2, 3):
        path = tmp_path / f"scalar{zarr_format}.zarr"
        a = zarr.create_array(zarr.storage.LocalStore(path), shape=(), dtype="float64", zarr_format=zarr_format,
                              fill_value=0.5)
        a[()] = 2.25
        assert _compare(path, [("basic", np.s_[()]), ("basic", np.s_[...])])["by_path"] == 2


def test_reads_after_writes_through_the_same_handle_see_the_new_values(tmp_path):
    path = tmp_path / "rw.zarr"
    with zarr.config.set(PIPELINE):
        a = zarr.create_array(zarr.storage.LocalStore(path), shape=SHAPE, chunks=CHUNKS, dtype="int32",
                              compressors=[zc.ZstdCodec(level=1)])
        before = _routes()
        data = sample()
        a[...] = data
        np.testing.assert_array_equal(a[...], data)
        a[3:20, 4:9] = -1
        data[3:20, 4:9] = -1
        np.testing.assert_array_equal(a[...], data)
        a.resize((50, 23))
        np.testing.assert_array_equal(a[37:, :], np.zeros((13, 23), dtype="int32"))
        np.testing.assert_array_equal(a[:37], data)
        assert _routes()["by_path"] - before.get("by_path", 0) >= 4


def test_a_handle_another_handle_resized_reads_as_zarr_python_does(tmp_path):
    path = tmp_path / "stale.zarr"
    _write(path, 3, "zstd")
    held = zarr.open_array(zarr.storage.LocalStore(path))
    with zarr.config.set(PIPELINE):
        held_here = zarr.open_array(zarr.storage.LocalStore(path))
        zarr.open_array(zarr.storage.LocalStore(path)).resize((60, 23))  # the files now say 60 rows
        before = _routes()
        got = held_here[...]
        assert _routes()["by_path"] == before.get("by_path", 0) + 1
    np.testing.assert_array_equal(got, held[...])  # zarr-python's own pipeline, its 37 rows


def test_files_of_another_layout_read_through_the_store(tmp_path):
    """The files were replaced by an array of other chunks: zarrgpu's view is not zarr-python's."""
    path = tmp_path / "replaced.zarr"
    _write(path, 3, "raw")
    with zarr.config.set(PIPELINE):
        held = zarr.open_array(zarr.storage.LocalStore(path))
        zarr.create_array(zarr.storage.LocalStore(path), shape=SHAPE, chunks=(5, 5), dtype="int32",
                          compressors=None, overwrite=True)
        before = _routes()
        held[...]
        assert _routes()["through_store"] == before.get("through_store", 0) + 1


class _ShiftingStore(zarr.storage.LocalStore):
    """A LocalStore subclass with a `get` of its own (it could change what the files hold):
    zarrgpu must not read the files behind its back."""

    async def get(self, key, prototype=None, byte_range=None):
        return await super().get(key, prototype, byte_range)


def test_other_stores_read_through_the_store(tmp_path):
    path = tmp_path / "m.zarr"
    _write(path, 3, "zstd")
    expected = zarr.open_array(zarr.storage.LocalStore(path))[...]
    memory = zarr.storage.MemoryStore()
    zarr.create_array(memory, shape=SHAPE, chunks=CHUNKS, dtype="int32", compressors=[zc.ZstdCodec()])[...] = expected
    with zarr.config.set(PIPELINE):
        for store in (memory, _ShiftingStore(path, read_only=True)):
            a = zarr.open_array(store)
            assert a._async_array.codec_pipeline.by_path is not None
            assert not a._async_array.codec_pipeline.by_path.usable
            before = _routes()
            np.testing.assert_array_equal(a[...], expected)
            np.testing.assert_array_equal(a.oindex[[3, 1], :], expected[[3, 1], :])
            after = _routes()
            assert after.get("by_path", 0) == before.get("by_path", 0)
            assert after["through_store"] == before.get("through_store", 0) + 2


def test_by_path_reads_need_no_store_get(tmp_path, monkeypatch):
    path = tmp_path / "n.zarr"
    _write(path, 3, "sharded")
    expected = zarr.open_array(zarr.storage.LocalStore(path))[...]
    gets = []
    original = zarr.storage.LocalStore.get

    async def counting(self, key, *args, **kwargs):
        gets.append(key)
        return await original(self, key, *args, **kwargs)

    with zarr.config.set(PIPELINE):
        a = zarr.open_array(zarr.storage.LocalStore(path, read_only=True))
        monkeypatch.setattr(zarr.storage.LocalStore, "get", counting)
        np.testing.assert_array_equal(a[...], expected)
    assert gets == []  # zarrgpu read the shards' files itself


def test_corrupt_chunks_read_by_path_name_their_key_and_codec(tmp_path):
    path = tmp_path / "bad.zarr"
    _write(path, 3, "zstd")
    (path / "c" / "1" / "2").write_bytes(b"\x28\xb5\x2f\xfd junk")
    with zarr.config.set(PIPELINE):
        a = zarr.open_array(zarr.storage.LocalStore(path, read_only=True))
        with pytest.raises(zarrgpu.CorruptDataError) as info:
            a[...]
    assert info.value.chunk_key.endswith("c/1/2")
    assert info.value.codec == "zstd"


def test_unsupported_chains_still_fall_back_with_the_reason(tmp_path):
    path = tmp_path / "str.zarr"
    with zarr.config.set(PIPELINE):
        a = zarr.create_array(zarr.storage.LocalStore(path), shape=(5,), chunks=(2,), dtype=str)
        with pytest.warns(zz.FallbackWarning, match="data type"):
            a[...] = np.array(["a", "bb", "", "dddd", "e"])
        before = _routes()
        with pytest.warns(zz.FallbackWarning, match="data type"):
            assert a[...].tolist() == ["a", "bb", "", "dddd", "e"]
        assert _routes()["through_store"] == before.get("through_store", 0) + 1


def test_numcodecs_filters_the_core_lacks_fall_back(tmp_path):
    path = tmp_path / "q.zarr"
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=(30,), chunks=(7,), dtype="float64", zarr_format=2,
                          filters=[numcodecs.Quantize(digits=2, dtype="f8")], compressors=None)
    a[...] = np.linspace(0, 1, 30)
    reference = zarr.open_array(zarr.storage.LocalStore(path, read_only=True))[...]
    with zarr.config.set(PIPELINE), warnings.catch_warnings():
        warnings.simplefilter("ignore", zz.FallbackWarning)
        np.testing.assert_array_equal(zarr.open_array(zarr.storage.LocalStore(path, read_only=True))[...], reference)


def test_reads_run_off_the_event_loop(tmp_path):
    """Two arrays read concurrently through zarr-python's async API both finish."""
    paths = [tmp_path / "c1.zarr", tmp_path / "c2.zarr"]
    for p in paths:
        _write(p, 3, "zstd")

    async def both():
        arrays = [await zarr.api.asynchronous.open_array(store=zarr.storage.LocalStore(p, read_only=True)) for p in paths]
        return await asyncio.gather(*(a.getitem(np.s_[...]) for a in arrays))

    with zarr.config.set(PIPELINE):
        got = asyncio.run(both())
    for p, g in zip(paths, got, strict=True):
        np.testing.assert_array_equal(g, zarr.open_array(zarr.storage.LocalStore(p))[...])


def test_kvikio_gds_stores_read_by_path(tmp_path):
    """KvikIO's GDSStore is a LocalStore whose `get` reads the same files through cuFile: taken
    by path. Stood in for by a subclass in kvikio.zarr's module (KvikIO is not a dependency)."""
    class GDSStore(zarr.storage.LocalStore):
        async def get(self, key, prototype=None, byte_range=None):
            return await super().get(key, prototype, byte_range)

    GDSStore.__module__ = "kvikio.zarr._zarr_python_3"
    path = tmp_path / "gds.zarr"
    _write(path, 3, "sharded")
    expected = zarr.open_array(zarr.storage.LocalStore(path))[...]
    with zarr.config.set(PIPELINE):
        a = zarr.open_array(GDSStore(path, read_only=True))
        before = _routes()
        np.testing.assert_array_equal(a[...], expected)
        assert _routes()["by_path"] == before.get("by_path", 0) + 1
