"""GPU: arrays that zarr-python and numcodecs write with Blosc (format 2's default compressor)
and LZ4, read with device="cuda" through zarrgpu's GPU LZ4 and Blosc decoders (issue 36),
equal to the CPU read and to zarr-python's; the read report says which decoder ran.

Skips without a GPU (CI); the lead runs it on the GPU machine."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from _zarrgpu_gpu import requires_gpu

zarrgpu = pytest.importorskip("zarrgpu")
zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zn = pytest.importorskip("zarr.codecs.numcodecs")

warnings.filterwarnings("ignore", message="Numcodecs codecs are not in the Zarr version 3")

pytestmark = requires_gpu

SHAPE, CHUNKS = (60, 90), (16, 32)


def sample(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(3)
    field = 250 + 30 * np.sin(np.linspace(0, 9, SHAPE[0] * SHAPE[1])).reshape(SHAPE) + rng.normal(size=SHAPE)
    return field.astype(dtype)


def write(path, data, zarr_format, compressor):
    kw = {"compressors": compressor}
    a = zarr.create_array(store=str(path), shape=data.shape, chunks=CHUNKS, dtype=data.dtype,
                          zarr_format=zarr_format, **kw)
    a[...] = data


def blosc(zarr_format, cname, shuffle, blocksize=0):
    if zarr_format == 2:
        return numcodecs.Blosc(cname=cname, clevel=5, shuffle=shuffle, blocksize=blocksize)
    return zarr.codecs.BloscCodec(cname=cname, clevel=5, shuffle=["noshuffle", "shuffle", "bitshuffle"][shuffle],
                                  blocksize=blocksize)


def lz4(zarr_format):
    return numcodecs.LZ4() if zarr_format == 2 else zn.LZ4()


def read_both(path):
    """The CPU read and the device read (GPU decoders forced), checked equal; the device report."""
    a = zarrgpu.open(str(path))
    want = zarr.open_array(str(path), mode="r")[...]
    cpu = a[...]
    np.testing.assert_array_equal(cpu, want)
    with zarrgpu.configured(blosc_decoder="gpu", lz4_decoder="gpu"):
        got = a.read(device="cuda")
        report = zarrgpu.last_read_report()
    assert report.device == "cuda:0"
    np.testing.assert_array_equal(got.get(), cpu)
    return report


def gpu_chunks(report, codec):
    return {c.codec: c for c in report.codecs}[codec]


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("cname", ["lz4", "blosclz", "lz4hc"])
@pytest.mark.parametrize("shuffle", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["<f4", "<i2", "|u1", "<f8"])
def test_blosc_arrays_decode_on_the_gpu(tmp_path, zarr_format, cname, shuffle, dtype):
    data = sample(dtype)
    path = tmp_path / "b.zarr"
    write(path, data, zarr_format, blosc(zarr_format, cname, shuffle))
    report = read_both(path)
    c = gpu_chunks(report, "blosc")
    assert c.gpu_chunks == report.chunks - report.missing_chunks > 0 and c.cpu_chunks == 0, report
    assert report.decoder_detail.startswith("blosc: "), report.decoder_detail
    assert "blosc_decoder=gpu" in report.decoder_detail


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", ["<f4", "<i2", "|u1", "<f8"])
def test_lz4_arrays_decode_on_the_gpu(tmp_path, zarr_format, dtype):
    path = tmp_path / "l.zarr"
    write(path, sample(dtype), zarr_format, lz4(zarr_format))
    report = read_both(path)
    c = gpu_chunks(report, "numcodecs.lz4")
    assert c.gpu_chunks == report.chunks - report.missing_chunks > 0 and c.cpu_chunks == 0, report
    assert "lz4_decoder=gpu" in report.decoder_detail


def test_numcodecs_default_blosc_decodes_on_the_gpu(tmp_path):
    # numcodecs.Blosc() as zarr-python 2 wrote it by default: lz4, clevel 5, byte shuffle,
    # automatic blocks (large chunks: several of them).
    data = np.tile(sample("<f4"), (8, 8))
    path = tmp_path / "d.zarr"
    a = zarr.create_array(store=str(path), shape=data.shape, chunks=(240, 720), dtype=data.dtype, zarr_format=2,
                          compressors=numcodecs.Blosc())
    a[...] = data
    report = read_both(path)
    assert gpu_chunks(report, "blosc").gpu_chunks > 0, report


def test_blosc_of_zlib_decodes_on_cpu_threads_and_says_why(tmp_path):
    path = tmp_path / "z.zarr"
    write(path, sample("<f4"), 2, blosc(2, "zlib", 1))
    report = read_both(path)
    c = gpu_chunks(report, "blosc")
    assert c.gpu_chunks == 0 and c.cpu_chunks == report.chunks - report.missing_chunks
    assert "no zlib" in report.decoder_detail, report.decoder_detail


def test_a_corrupt_blosc_chunk_names_array_chunk_and_codec(tmp_path):
    path = tmp_path / "c.zarr"
    write(path, sample("<f4"), 2, blosc(2, "lz4", 1))
    chunk = path / "0.0"
    raw = bytearray(chunk.read_bytes())
    for i in range(24, len(raw), 5):  # keep the header and block starts, garble the streams
        raw[i] ^= 0x5A
    chunk.write_bytes(bytes(raw))
    a = zarrgpu.open(str(path))
    with zarrgpu.configured(blosc_decoder="gpu"):
        with pytest.raises(zarrgpu.CorruptDataError) as e:
            a.read(device="cuda")
    assert "0.0" in str(e.value) and "blosc" in str(e.value)
