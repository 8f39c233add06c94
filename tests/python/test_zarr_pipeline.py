"""zarrgpu.zarr inside zarr-python (issue 37): the codec pipeline and the zstd codec.

- Importing zarrgpu (and zarrgpu.zarr) leaves zarr-python's defaults in force.
- With the pipeline selected, arrays of every codec chain and both formats, on MemoryStore
  and LocalStore (FsspecStore and ZipStore too), read what zarr-python's own pipeline and
  TensorStore wrote, and write what they read back identically (CPU <-> CPU here; the GPU halves are in test_gpu_zarr_pipeline.py).
- A read decodes all the chunks it touches in one zarrgpu batch; a sharded read decodes only
  the inner chunks it touches; a write encodes in one batch.
- Chains zarrgpu does not take fall back to zarr-python with a FallbackWarning saying why.
- Corrupt chunks raise zarrgpu errors naming the chunk's key and codec.
- The zstd codec is selectable, equal to zarr-python's on the CPU, and reads frame sizes
  from zstd headers as libzstd writes them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numcodecs
import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
import zarr.codecs as zc  # noqa: E402
from zarr.core.codec_pipeline import BatchedCodecPipeline  # noqa: E402
from zarr.abc.codec import BytesBytesCodec  # noqa: E402
from zarr.registry import get_codec_class, get_pipeline_class, register_codec  # noqa: E402

import zarrgpu  # noqa: E402
import zarrgpu.zarr as zz  # noqa: E402
from zarrgpu.zarr import _pipeline  # noqa: E402
from zarrgpu.zarr._zstd import frame_content_size  # noqa: E402

try:
    import tensorstore as ts
except ImportError:  # the GPU machine may lack it: the comparisons with it skip, the rest runs
    ts = None

PIPELINE = {"codec_pipeline.path": "zarrgpu.zarr.CodecPipeline"}
SHAPE, CHUNKS = (37, 23), (8, 10)

V3_CHAINS = {
    "raw": dict(compressors=None),
    "zstd": dict(compressors=[zc.ZstdCodec(level=3)]),
    "zstd_checksum": dict(compressors=[zc.ZstdCodec(level=1, checksum=True)]),
    "gzip": dict(compressors=[zc.GzipCodec(level=5)]),
    "blosc": dict(compressors=[zc.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")]),
    "zstd_crc32c": dict(compressors=[zc.ZstdCodec(level=3), zc.Crc32cCodec()]),
    "big_endian": dict(serializer=zc.BytesCodec(endian="big"), compressors=[zc.ZstdCodec(level=3)]),
    "transpose": dict(filters=[zc.TransposeCodec(order=(1, 0))], compressors=[zc.ZstdCodec(level=3)]),
    "sharded": dict(shards=(16, 20), compressors=[zc.ZstdCodec(level=3)]),
}
V2_CHAINS = {
    "none": dict(compressors=None),
    "zstd": dict(compressors=numcodecs.Zstd(level=3)),
    "zlib": dict(compressors=numcodecs.Zlib(level=5)),
    "blosc": dict(compressors=numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.BITSHUFFLE)),
    "delta_zstd": dict(filters=[numcodecs.Delta(dtype="<i4")], compressors=numcodecs.Zstd(level=1)),
    "order_F": dict(compressors=numcodecs.Zstd(level=1), order="F"),
}
CASES = [(3, name) for name in V3_CHAINS] + [(2, name) for name in V2_CHAINS]


def sample(dtype="int32", shape=SHAPE) -> np.ndarray:
    rng = np.random.default_rng(7)
    return (np.cumsum(rng.integers(-5, 6, int(np.prod(shape)))) % 1000).astype(dtype).reshape(shape)


def create(store, zarr_format, name, dtype="int32"):
    kwargs = dict((V3_CHAINS if zarr_format == 3 else V2_CHAINS)[name])
    order = kwargs.pop("order", None)
    config = {"order": order} if order else None
    if zarr_format == 2 and name == "delta_zstd":
        dtype = "<i4"
    return zarr.create_array(store, shape=SHAPE, chunks=CHUNKS, dtype=dtype, zarr_format=zarr_format,
                             fill_value=0, config=config, **kwargs)


def ts_read(path, zarr_format) -> np.ndarray:
    """TensorStore's read of the array at `path`; skips the test (after its other checks) without it."""
    if ts is None:
        pytest.skip("tensorstore is not installed")
    spec = {"driver": "zarr3" if zarr_format == 3 else "zarr", "kvstore": {"driver": "file", "path": str(path)}}
    return ts.open(spec, open=True, read=True).result().read().result()


def test_importing_zarrgpu_changes_nothing_until_selected():
    import importlib

    importlib.reload(zz)
    assert get_pipeline_class() is BatchedCodecPipeline
    assert get_codec_class("zstd") is zc.ZstdCodec
    a = zarr.create_array(zarr.storage.MemoryStore(), shape=(4,), chunks=(2,), dtype="f4")
    assert type(a._async_array.codec_pipeline) is BatchedCodecPipeline
    assert type(a._async_array.metadata.codecs[-1]) is zc.ZstdCodec
    with zarr.config.set(PIPELINE):
        assert get_pipeline_class() is zz.CodecPipeline
    assert get_pipeline_class() is BatchedCodecPipeline


@pytest.mark.parametrize("zarr_format,name", CASES)
def test_reads_what_zarr_python_writes(tmp_path, zarr_format, name):
    data = sample()
    a = create(zarr.storage.LocalStore(tmp_path / "a.zarr"), zarr_format, name)
    a[...] = data
    a[30:, 20:] = 0  # an all-fill chunk: not stored, read as the fill value
    expected = a[...]
    with zarr.config.set(PIPELINE):
        b = zarr.open_array(zarr.storage.LocalStore(tmp_path / "a.zarr", read_only=True))
        assert type(b._async_array.codec_pipeline) is zz.CodecPipeline
        with warnings.catch_warnings():
            warnings.simplefilter("error", zz.FallbackWarning)
            np.testing.assert_array_equal(b[...], expected)
            np.testing.assert_array_equal(b[3:29:3, 5:], expected[3:29:3, 5:])
            np.testing.assert_array_equal(b.oindex[[1, 20, 36], [0, 22]], expected[np.ix_([1, 20, 36], [0, 22])])
            assert b[36, 22] == expected[36, 22]


@pytest.mark.parametrize("zarr_format,name", CASES)
def test_writes_what_zarr_python_and_tensorstore_read(tmp_path, zarr_format, name):
    data = sample()
    path = tmp_path / "w.zarr"
    with zarr.config.set(PIPELINE), warnings.catch_warnings():
        warnings.simplefilter("error", zz.FallbackWarning)
        a = create(zarr.storage.LocalStore(path), zarr_format, name)
        assert type(a._async_array.codec_pipeline) is zz.CodecPipeline
        a[...] = data
        a[2:5, 3:14] = -1  # partial chunk writes merge with what is stored
        data[2:5, 3:14] = -1
    np.testing.assert_array_equal(zarr.open_array(zarr.storage.LocalStore(path))[...], data)
    np.testing.assert_array_equal(zarrgpu.open(str(path))[...], data)
    if "filters" not in (V2_CHAINS if zarr_format == 2 else {}).get(name, {}):  # TensorStore: no v2 filters
        np.testing.assert_array_equal(ts_read(path, zarr_format), data)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "uint64", "float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_every_numeric_type_round_trips_on_a_memory_store(zarr_format, dtype):
    data = sample(dtype)
    store = zarr.storage.MemoryStore()
    with zarr.config.set(PIPELINE), warnings.catch_warnings():
        warnings.simplefilter("error", zz.FallbackWarning)
        a = create(store, zarr_format, "zstd", dtype=dtype)
        a[...] = data
        np.testing.assert_array_equal(a[...], data)
    np.testing.assert_array_equal(zarr.open_array(store)[...], data)


@pytest.fixture
def batches(monkeypatch):
    """(number of chunks, chunk shape) of every batch zarrgpu decodes."""
    seen = []
    original = _pipeline.CodecPipeline._decode_now

    def counting(self, chain, encoded, specs, *rest):
        seen.append((len(encoded), specs[0].shape))
        return original(self, chain, encoded, specs, *rest)

    monkeypatch.setattr(_pipeline.CodecPipeline, "_decode_now", counting)
    return seen


@pytest.mark.parametrize("store_kind", ["fsspec_memory", "zip"])
def test_other_zarr_python_stores_read_and_write_through_the_pipeline(tmp_path, store_kind, batches):
    data = sample()
    if store_kind == "fsspec_memory":
        pytest.importorskip("fsspec")
        make = lambda: zarr.storage.FsspecStore.from_url(f"memory://{tmp_path.name}", read_only=False)  # noqa: E731
    else:
        make = lambda: zarr.storage.ZipStore(tmp_path / "a.zip", mode="a")  # noqa: E731
    store = make()
    with zarr.config.set(PIPELINE), warnings.catch_warnings():
        warnings.simplefilter("error", zz.FallbackWarning)
        create(store, 3, "zstd")[...] = data
        np.testing.assert_array_equal(zarr.open_array(store)[3:30, 2:21], data[3:30, 2:21])
    store.close()
    assert sum(n for n, _ in batches) >= 15  # every chunk went through zarrgpu
    np.testing.assert_array_equal(zarr.open_array(make())[...], data)  # zarr-python's own pipeline reads it


def test_a_read_decodes_its_chunks_in_one_batch(batches):
    with zarr.config.set(PIPELINE):
        a = create(zarr.storage.MemoryStore(), 3, "zstd")
        a[...] = sample()
        batches.clear()
        a[...]
        assert [n for n, _ in batches] == [5 * 3]  # every chunk of the 5 x 3 grid, one batch
        batches.clear()
        a[0:9, 0:11]
        assert [n for n, _ in batches] == [4]


def test_batches_are_bounded_by_batch_bytes(monkeypatch, batches):
    monkeypatch.setattr(_pipeline, "BATCH_BYTES", 2 * 8 * 10 * 4)  # two chunks of int32
    data = sample()
    with zarr.config.set(PIPELINE):
        a = create(zarr.storage.MemoryStore(), 3, "zstd")
        a[...] = data
        batches.clear()
        np.testing.assert_array_equal(a[...], data)
    assert [n for n, _ in batches] == [2] * 7 + [1]


def test_sharded_reads_decode_only_the_inner_chunks_touched(batches):
    data = sample()
    with zarr.config.set(PIPELINE):
        a = create(zarr.storage.MemoryStore(), 3, "sharded")
        a[...] = data
        # The shard indexes decode through the pipeline too: count the inner chunks' batches.
        batches.clear()
        assert a[9, 11] == data[9, 11]
        assert [n for n, shape in batches if shape == CHUNKS] == [1]  # one inner chunk of one shard
        batches.clear()
        np.testing.assert_array_equal(a[0:16, 0:20], data[0:16, 0:20])
        assert [n for n, shape in batches if shape == CHUNKS] == [4]  # the shard's 2 x 2 inner chunks


def test_whole_contiguous_chunks_decode_straight_into_the_output(monkeypatch):
    direct = []
    original = _pipeline._direct_target

    def spy(*args):
        target = original(*args)
        direct.append(target is not None)
        return target

    monkeypatch.setattr(_pipeline, "_direct_target", spy)
    data = sample(shape=(45, 10))
    with zarr.config.set(PIPELINE):
        a = zarr.create_array(zarr.storage.MemoryStore(), shape=data.shape, chunks=(8, 10), dtype="int32",
                              compressors=[zc.ZstdCodec(level=1)])
        a[...] = data
        a[16:24] = 0  # a missing chunk: filled, not decoded
        data[16:24] = 0
        direct.clear()
        np.testing.assert_array_equal(a[...], data)
        # Chunks 0-4 fill whole rows of the output (the last, rows 40-44, is cut by the array's end).
        assert direct == [True] * 5 + [False]
        direct.clear()
        np.testing.assert_array_equal(a[4:20, 3:7], data[4:20, 3:7])
        assert not any(direct)


def test_unsupported_chains_fall_back_with_the_reason():
    store = zarr.storage.MemoryStore()
    with zarr.config.set(PIPELINE):
        a = zarr.create_array(store, shape=(5,), chunks=(2,), dtype=str)
        with pytest.warns(zz.FallbackWarning, match="data type"):
            a[...] = np.array(["a", "bb", "", "dddd", "e"])
        with pytest.warns(zz.FallbackWarning, match="data type"):
            assert a[...].tolist() == ["a", "bb", "", "dddd", "e"]


@dataclass(frozen=True)
class _XorCodec(BytesBytesCodec):
    """A bytes -> bytes codec zarrgpu does not know (flips every bit)."""

    is_fixed_size = True

    @classmethod
    def from_dict(cls, data):
        return cls()

    def to_dict(self):
        return {"name": "zarrgpu_test_xor"}

    async def _decode_single(self, chunk_bytes, chunk_spec):
        return chunk_spec.prototype.buffer.from_bytes(bytes(255 - chunk_bytes.as_numpy_array()))

    async def _encode_single(self, chunk_bytes, chunk_spec):
        return chunk_spec.prototype.buffer.from_bytes(bytes(255 - chunk_bytes.as_numpy_array()))

    def compute_encoded_size(self, input_byte_length, chunk_spec):
        return input_byte_length


register_codec("zarrgpu_test_xor", _XorCodec)


def test_codecs_zarrgpu_lacks_fall_back_with_the_reason():
    store = zarr.storage.MemoryStore()
    data = np.arange(10, dtype="f8")
    with zarr.config.set(PIPELINE):
        a = zarr.create_array(store, shape=(10,), chunks=(4,), dtype="f8", compressors=[_XorCodec()])
        with pytest.warns(zz.FallbackWarning, match="zarrgpu_test_xor"):
            a[...] = data
        with pytest.warns(zz.FallbackWarning, match="zarrgpu_test_xor"):
            np.testing.assert_array_equal(a[...], data)
    np.testing.assert_array_equal(zarr.open_array(store)[...], data)


def test_corrupt_chunks_name_their_key_and_codec():
    store = zarr.storage.MemoryStore()
    with zarr.config.set(PIPELINE):
        a = create(store, 3, "zstd")
        a[...] = sample()
        import asyncio

        asyncio.run(store.set("c/1/2", zarr.core.buffer.cpu.Buffer.from_bytes(b"\x28\xb5\x2f\xfd junk")))
        with pytest.raises(zarrgpu.CorruptDataError) as info:
            a[...]
    assert info.value.chunk_key == "c/1/2"
    assert info.value.codec == "zstd"


def test_zstd_codec_is_selectable_and_equal_to_zarr_pythons_on_the_cpu():
    data = sample("float32")
    store = zarr.storage.MemoryStore()
    with zarr.config.set({"codecs.zstd": "zarrgpu.zarr.ZstdCodec"}):
        assert get_codec_class("zstd") is zz.ZstdCodec
        a = zarr.create_array(store, shape=SHAPE, chunks=CHUNKS, dtype="f4", compressors=[{"name": "zstd",
                              "configuration": {"level": 2, "checksum": True}}])
        assert type(a._async_array.metadata.codecs[-1]) is zz.ZstdCodec
        a[...] = data
        np.testing.assert_array_equal(a[...], data)
    b = zarr.open_array(store)
    assert type(b._async_array.metadata.codecs[-1]) is zc.ZstdCodec
    assert b._async_array.metadata.codecs[-1].to_dict() == {"name": "zstd", "configuration": {"level": 2,
                                                                                              "checksum": True}}
    np.testing.assert_array_equal(b[...], data)


@pytest.mark.parametrize("n", [0, 1, 255, 256, 257, 65791, 65792, 1 << 20])
def test_frame_content_size_reads_libzstd_headers(n):
    # numcodecs (libzstd) writes what zarr-python stores: 1-, 2- (n - 256) and 4-byte size fields.
    frame = bytes(numcodecs.Zstd(level=1).encode(np.zeros(n, dtype=np.uint8)))
    assert frame_content_size(frame[:18]) == n


def test_frame_content_size_refuses_what_is_not_a_sized_frame():
    assert frame_content_size(b"") is None
    assert frame_content_size(b"\x00\x01\x02\x03\x04\x05") is None
    # Magic, descriptor 0x00 (no single segment, no size field), window byte: size unknown.
    assert frame_content_size(b"\x28\xb5\x2f\xfd\x00\x48") is None
