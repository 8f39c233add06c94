"""zarrgpu.create_array / create_group / array[sel] = value, read back with zarr-python 3."""

from __future__ import annotations

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")
zarr = pytest.importorskip("zarr")


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", ["<f4", "<i2", "<u8", "|b1", "<c16", "<f2"])
def test_write_then_zarr_python_reads(tmp_path, zarr_format, dtype):
    rng = np.random.default_rng(5)
    shape, chunks = (37, 23), (10, 7)
    data = (rng.random(shape) * 100).astype(dtype)
    a = zarrgpu.create_array(tmp_path / "a.zarr", shape=shape, dtype=dtype, chunks=chunks,
                             zarr_format=zarr_format, attrs={"units": "K", "scale": [1, 2]},
                             dimension_names=["y", "x"])
    a[...] = data
    z = zarr.open_array(tmp_path / "a.zarr", mode="r")
    assert z.metadata.zarr_format == zarr_format
    assert z.shape == shape and z.chunks == chunks and z.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(z[...], data)
    assert z.attrs["units"] == "K"
    if zarr_format == 3:
        assert z.metadata.dimension_names == ("y", "x")
    else:
        assert z.attrs["_ARRAY_DIMENSIONS"] == ["y", "x"]
    back = zarrgpu.open(tmp_path / "a.zarr")
    np.testing.assert_array_equal(back[...], data)
    # Format 2 keeps them in _ARRAY_DIMENSIONS; the metadata model maps them back.
    assert back.dimension_names == ("y", "x")


def test_partial_writes_broadcast_and_fill_value(tmp_path):
    a = zarrgpu.create_array(tmp_path / "p.zarr", shape=(20, 30), dtype="float64", chunks=(8, 8), fill_value=np.nan)
    a[2:5, 3:29:2] = 7.0  # scalar broadcast, strided, partial chunks
    a[-1] = np.arange(30)
    ref = np.full((20, 30), np.nan)
    ref[2:5, 3:29:2] = 7.0
    ref[-1] = np.arange(30)
    np.testing.assert_array_equal(zarr.open_array(tmp_path / "p.zarr", mode="r")[...], ref)
    np.testing.assert_array_equal(a[...], ref)
    assert np.isnan(a.fill_value) and a.fill_value.dtype == np.float64


def test_sharded_write(tmp_path):
    data = np.arange(64 * 48, dtype=np.int32).reshape(64, 48)
    a = zarrgpu.create_array(tmp_path / "s.zarr", shape=data.shape, dtype=data.dtype, chunks=(8, 8),
                             shards=(32, 24), codecs=[{"name": "zstd", "configuration": {"level": 1}}])
    assert a.chunks == (8, 8) and a.shards == (32, 24)
    a[...] = data
    z = zarr.open_array(tmp_path / "s.zarr", mode="r")
    assert z.shards == (32, 24) and z.chunks == (8, 8)
    np.testing.assert_array_equal(z[...], data)


def test_write_from_a_host_device_array_and_groups(tmp_path):
    g = zarrgpu.create_group(tmp_path / "g.zarr", attrs={"title": "t"})
    a = g.create_array("v", shape=(4, 5), dtype="float32", chunks=(2, 5))
    g.create_group("sub").create_array("w", shape=(3,), dtype="uint8")
    src = zarrgpu.DeviceArray._host_empty([4, 5], "float32")
    np.from_dlpack(src)[...] = np.arange(20, dtype=np.float32).reshape(4, 5)
    a[...] = src
    zg = zarr.open_group(tmp_path / "g.zarr", mode="r")
    assert zg.attrs["title"] == "t"
    np.testing.assert_array_equal(zg["v"][...], np.arange(20, dtype=np.float32).reshape(4, 5))
    assert zg["sub/w"].shape == (3,)
    reopened = zarrgpu.open(tmp_path / "g.zarr")
    assert sorted(reopened.member_names()) == ["sub", "v"]


def test_mode_r_is_read_only(tmp_path):
    zarrgpu.create_array(tmp_path / "r.zarr", shape=(3,), dtype="int8")
    ro = zarrgpu.open(tmp_path / "r.zarr")
    with pytest.raises(zarrgpu.ReadOnlyError):
        ro[0] = 1
    rw = zarrgpu.open(tmp_path / "r.zarr", mode="r+")
    rw[0] = 1
    assert rw[0] == 1


def test_create_argument_errors(tmp_path):
    with pytest.raises(zarrgpu.InvalidArgumentError, match="chunks"):
        zarrgpu.create_array(tmp_path / "e.zarr", shape=(3, 3), dtype="f4", chunks=(3,))
    with pytest.raises(TypeError, match="data type"):
        zarrgpu.create_array(tmp_path / "e.zarr", shape=(3,), dtype=[("a", "<i4"), ("b", "<f8")])
    with pytest.raises(zarrgpu.InvalidArgumentError, match="zarr_format=3"):
        zarrgpu.create_array(tmp_path / "e.zarr", shape=(3,), dtype="f4", zarr_format=2, shards=(3,))
    # NaN attributes are written as zarr-python writes them (test_metadata_json.py); what
    # JSON cannot hold at all is still refused before anything is written.
    circular: dict = {}
    circular["self"] = circular
    with pytest.raises(zarrgpu.InvalidArgumentError, match="attributes must be JSON"):
        zarrgpu.create_array(tmp_path / "e.zarr", shape=(3,), dtype="f4", attrs=circular)
    assert not (tmp_path / "e.zarr").exists()
    a = zarrgpu.create_array(tmp_path / "ok.zarr", shape=(3,), dtype="f4")
    with pytest.raises(ValueError):
        a[...] = np.zeros(4, dtype=np.float32)  # does not broadcast


def test_bfloat16_roundtrip(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    data = np.linspace(-3, 3, 12).astype(ml_dtypes.bfloat16).reshape(3, 4)
    a = zarrgpu.create_array(tmp_path / "b.zarr", shape=(3, 4), dtype="bfloat16", chunks=(2, 2))
    assert a.dtype == np.dtype(ml_dtypes.bfloat16)
    a[...] = data
    got = zarrgpu.open(tmp_path / "b.zarr")[...]
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert got.tobytes() == data.tobytes()


# Every codec zarrgpu writes, named alone: written with its configuration in full,
# as zarr-python writes it (zarr-python refuses {"name": "zstd"} without one), issue 33.
CODECS_BY_NAME = {
    "bytes": {"endian": "little"},
    "zstd": {"level": 0, "checksum": False},
    "gzip": {"level": 5},
    "blosc": {"cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0},
    "crc32c": None,
    "numcodecs.zstd": {"level": 0, "checksum": False},
    "numcodecs.gzip": {"level": 1},
    "numcodecs.blosc": {"cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
    "numcodecs.zlib": {"level": 1},
    "numcodecs.lz4": {"acceleration": 1},
    "numcodecs.bz2": {"level": 1},
    "numcodecs.lzma": {"format": 1, "check": -1, "preset": None, "filters": None},
    "numcodecs.shuffle": {"elementsize": 4},
    "numcodecs.crc32": {},
    "numcodecs.adler32": {},
    "numcodecs.crc32c": {},
    "numcodecs.fletcher32": {},
}


@pytest.mark.parametrize("name", sorted(CODECS_BY_NAME))
def test_codec_created_by_name_is_written_in_full(tmp_path, name):
    import json
    import warnings

    data = np.arange(600, dtype="<f4").reshape(20, 30) / 7
    a = zarrgpu.create_array(tmp_path / "a.zarr", shape=data.shape, dtype="<f4", chunks=(8, 16), codecs=[name])
    a[...] = data
    written = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())["codecs"]
    assert written[0] == {"name": "bytes", "configuration": {"endian": "little"}}
    want = {"name": name} if CODECS_BY_NAME[name] is None else {"name": name, "configuration": CODECS_BY_NAME[name]}
    assert written[-1] == want
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(zarr.open_array(tmp_path / "a.zarr", mode="r")[...], data)


@pytest.mark.parametrize("compressor", [{"id": "zstd"}, {"id": "gzip"}, {"id": "blosc"}, {"id": "zlib"}, {"id": "lz4"},
                                        {"id": "bz2"}, {"id": "lzma"}, {"id": "crc32"}, {"id": "crc32c"}])
def test_v2_codec_written_with_numcodecs_defaults(tmp_path, compressor):
    import json

    import numcodecs

    data = np.arange(600, dtype="<f4").reshape(20, 30) / 7
    a = zarrgpu.create_array(tmp_path / "a.zarr", shape=data.shape, dtype="<f4", chunks=(8, 16), zarr_format=2,
                             compressor=compressor, filters=[{"id": "quantize", "digits": 4}])
    a[...] = data
    zarray = json.loads((tmp_path / "a.zarr" / ".zarray").read_text())
    full = numcodecs.get_codec(dict(compressor)).get_config()
    full.pop("checksum", None)  # zstd's: TensorStore refuses the member, numcodecs defaults it to False
    assert zarray["compressor"] == full
    assert zarray["filters"] == [{"id": "quantize", "digits": 4, "dtype": "<f4", "astype": "<f4"}]
    np.testing.assert_array_equal(zarr.open_array(tmp_path / "a.zarr", mode="r")[...],
                                  zarrgpu.open(tmp_path / "a.zarr")[...])
