"""C++ errors reach Python as zarrgpu.errors classes carrying the C++ message and context."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")

from _zarrgpu_corpus import corpus_dir, requires_corpus  # noqa: E402


@pytest.fixture
def zstd_store(tmp_path):
    src = corpus_dir() / "v3_zstd1_f4_s11.zarr"
    dst = tmp_path / "copy.zarr"
    shutil.copytree(src, dst)
    return dst


@requires_corpus
def test_corrupt_chunk_is_corrupt_data_error_naming_the_chunk(zstd_store):
    chunk = next(p for p in sorted((zstd_store / "c").rglob("*")) if p.is_file())
    chunk.write_bytes(b"\x28\xb5\x2f\xfd" + b"\xff" * 40)  # a zstd magic number, then garbage
    key = chunk.relative_to(zstd_store).as_posix()
    a = zarrgpu.open(zstd_store)
    with pytest.raises(zarrgpu.CorruptDataError) as info:
        a[...]
    e = info.value
    assert isinstance(e, zarrgpu.ZarrgpuError)
    assert e.kind == "corrupt_data"
    assert e.cause and e.cause in str(e)
    assert key in str(e) or e.chunk_key.endswith(key)


@requires_corpus
def test_unsupported_codec_is_unsupported_error(zstd_store):
    meta = json.loads((zstd_store / "zarr.json").read_text())
    meta["codecs"][-1] = {"name": "no_such_codec", "configuration": {}}
    (zstd_store / "zarr.json").write_text(json.dumps(meta))
    with pytest.raises(zarrgpu.UnsupportedError) as info:
        zarrgpu.open(zstd_store)[...]
    assert isinstance(info.value, NotImplementedError)
    assert "no_such_codec" in str(info.value)


@requires_corpus
def test_bad_metadata_is_invalid_metadata_error(zstd_store):
    (zstd_store / "zarr.json").write_text('{"zarr_format": 3, "node_type": "array", "shape": "oops"}')
    with pytest.raises(zarrgpu.InvalidMetadataError) as info:
        zarrgpu.open(zstd_store)
    assert isinstance(info.value, ValueError)
    assert "shape" in str(info.value)


@requires_corpus
def test_truncated_json_is_invalid_metadata_error(zstd_store):
    (zstd_store / "zarr.json").write_text('{"zarr_format": 3, "node_')
    with pytest.raises(zarrgpu.InvalidMetadataError):
        zarrgpu.open(zstd_store)


def test_error_classes_map_to_builtins():
    assert issubclass(zarrgpu.NotFoundError, FileNotFoundError)
    assert issubclass(zarrgpu.NotFoundError, KeyError)
    assert issubclass(zarrgpu.InvalidMetadataError, ValueError)
    assert issubclass(zarrgpu.UnsupportedError, NotImplementedError)
    assert issubclass(zarrgpu.StorageError, OSError)
    assert issubclass(zarrgpu.DeviceError, RuntimeError)
    assert issubclass(zarrgpu.BoundsError, IndexError)
    for cls in (zarrgpu.NotFoundError, zarrgpu.CorruptDataError, zarrgpu.BoundsError):
        assert issubclass(cls, zarrgpu.ZarrgpuError)
    # KeyError would quote the message; ours reads as written.
    assert str(zarrgpu.NotFoundError("missing zarr.json")) == "missing zarr.json"


def test_wrong_selection_byte_count_never_writes_out_of_bounds(tmp_path):
    a = zarrgpu.create_array(tmp_path / "x.zarr", shape=(4, 4), dtype="f8")
    with pytest.raises(zarrgpu.InvalidArgumentError, match="bytes"):
        a._core.read_into([(0, 2, 1, False)], np.empty(3, dtype="f8"))
