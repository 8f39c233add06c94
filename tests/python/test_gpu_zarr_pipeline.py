"""zarrgpu.zarr on the GPU (issue 37): CPU <-> GPU round trips through zarr-python with
``zarr.config.enable_gpu()`` (CuPy buffers), for every codec chain of test_zarr_pipeline.py
and both formats:

- written on the CPU by zarr-python's own pipeline, read into GPU buffers through
  zarrgpu.zarr.CodecPipeline: from a MemoryStore through the store (zstd chains decoded by
  zarrgpu's GPU decoder: checked), from a LocalStore by path (zarrgpu's device read straight
  into zarr-python's CuPy output: the route checked, whole and partial selections);
- written from GPU buffers through the pipeline, read back by zarr-python on the CPU and by
  TensorStore;
- zarrgpu.zarr.ZstdCodec: GPU batches decoded on the GPU, equal to libzstd's result.

Skips without CuPy or a GPU (CI); the lead runs it on the GPU machine."""

from __future__ import annotations

import numpy as np
import pytest

from _zarrgpu_gpu import requires_gpu

cupy = pytest.importorskip("cupy")
zarr = pytest.importorskip("zarr")

from test_zarr_pipeline import CASES, PIPELINE, V2_CHAINS, create, sample, ts_read  # noqa: E402

import zarrgpu.zarr as zz  # noqa: E402
from zarrgpu.zarr import _device_decode  # noqa: E402

pytestmark = requires_gpu

# Chains whose chunks zarrgpu decodes on the GPU (little-endian bytes + zstd; sharded: the inner chain).
GPU_FORM = {(3, "zstd"), (3, "zstd_checksum"), (3, "sharded"), (2, "zstd")}


@pytest.fixture
def gpu_decodes(monkeypatch):
    calls = []
    original = _device_decode.decode_zstd_frames

    def counting(frames, sizes, keys):
        calls.append(len(frames))
        return original(frames, sizes, keys)

    monkeypatch.setattr(_device_decode, "decode_zstd_frames", counting)
    return calls


@pytest.mark.parametrize("zarr_format,name", CASES)
def test_gpu_reads_what_the_cpu_writes(tmp_path, zarr_format, name, gpu_decodes):
    data = sample()
    store = zarr.storage.MemoryStore()
    create(store, zarr_format, name)[...] = data
    with zarr.config.set(PIPELINE), zarr.config.enable_gpu():
        before = zz.read_routes()
        got = zarr.open_array(store)[...]
        assert isinstance(got, cupy.ndarray)
        np.testing.assert_array_equal(cupy.asnumpy(got), data)
        assert zz.read_routes().get("by_path", 0) == before.get("by_path", 0)
    if (zarr_format, name) in GPU_FORM:
        assert gpu_decodes, "a zstd chain read into GPU buffers did not use zarrgpu's GPU decoder"


@pytest.mark.parametrize("zarr_format,name", CASES)
def test_gpu_reads_local_stores_by_path(tmp_path, zarr_format, name):
    data = sample()
    a = create(zarr.storage.LocalStore(tmp_path / "a.zarr"), zarr_format, name)
    a[...] = data
    a[8:16, 10:20] = 0  # a chunk of fill values, not stored
    data[8:16, 10:20] = 0
    with zarr.config.set(PIPELINE), zarr.config.enable_gpu():
        b = zarr.open_array(zarr.storage.LocalStore(tmp_path / "a.zarr", read_only=True))
        before = zz.read_routes()
        for key in (np.s_[...], np.s_[3:29:3, 5:], np.s_[17, 2:21:4]):
            got = b[key]
            assert isinstance(got, cupy.ndarray)
            np.testing.assert_array_equal(cupy.asnumpy(got), data[key])
        got = b.oindex[[30, 1, 20], :]
        np.testing.assert_array_equal(cupy.asnumpy(got), data[[30, 1, 20], :])
        assert zz.read_routes()["by_path"] == before.get("by_path", 0) + 4


@pytest.mark.parametrize("zarr_format,name", CASES)
def test_cpu_and_tensorstore_read_what_the_gpu_writes(tmp_path, zarr_format, name):
    data = sample()
    path = tmp_path / "w.zarr"
    with zarr.config.set(PIPELINE), zarr.config.enable_gpu():
        a = create(zarr.storage.LocalStore(path), zarr_format, name)
        a[...] = cupy.asarray(data)
    np.testing.assert_array_equal(zarr.open_array(zarr.storage.LocalStore(path))[...], data)
    if "filters" not in V2_CHAINS.get(name, {}) or zarr_format == 3:  # TensorStore: no v2 filters
        np.testing.assert_array_equal(ts_read(path, zarr_format), data)


@pytest.mark.parametrize("checksum", [False, True])
def test_zstd_codec_decodes_gpu_batches_on_the_gpu(tmp_path, checksum, gpu_decodes):
    data = sample("float32")
    store = zarr.storage.LocalStore(tmp_path / "z.zarr")
    zarr.create_array(store, shape=data.shape, chunks=(8, 10), dtype="f4",
                      compressors=[zarr.codecs.ZstdCodec(level=3, checksum=checksum)])[...] = data
    with zarr.config.set({"codecs.zstd": "zarrgpu.zarr.ZstdCodec", "codec_pipeline.batch_size": 64}), \
            zarr.config.enable_gpu():
        got = zarr.open_array(store)[...]
    np.testing.assert_array_equal(cupy.asnumpy(got), data)
    assert gpu_decodes and max(gpu_decodes) > 1, "chunks were not decoded in GPU batches"
