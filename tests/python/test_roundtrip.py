"""Cross-implementation round trips through the `zarrgpu` command.

1. What zarr-python and TensorStore write (every codec, both formats, many
   dtypes), zarrgpu reads identically (`zarrgpu cat` -> np.load).
2. What zarrgpu writes (`zarrgpu convert` of stores zarr-python wrote, and
   `zarrgpu generate`), zarr-python 3 and TensorStore read back identically.
"""

from __future__ import annotations

import json
from pathlib import Path

import numcodecs
import numpy as np
import pytest
import zarr
import zarr.codecs as zc

ts = pytest.importorskip("tensorstore")

SHAPE = (37, 23)
CHUNKS = (8, 10)  # edge chunks on both axes


def sample(dtype: str, shape=SHAPE, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "b":
        a = rng.random(n) < 0.3
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -(2**40)), min(info.max, 2**40)
        a = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64 if dt.kind == "i" else np.uint64)
    elif dt.kind == "c":
        a = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    else:
        a = np.cumsum(rng.standard_normal(n)) * 3.0 + 250.0  # smooth-ish, like a field
    return a.astype(dt).reshape(shape)


def cat(run_zarrgpu, store: Path, out: Path, array: str = "") -> np.ndarray:
    args = ["cat", store, "--out", out, "--quiet"]
    if array:
        args += ["--array", array]
    r = run_zarrgpu(*args)
    assert r.returncode == 0, r.stderr
    return np.load(out)


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    """Equal values, dtype (up to byte order) and bits (NaNs included)."""
    want = np.asarray(want)
    assert got.shape == want.shape
    assert got.dtype == want.dtype.newbyteorder("<"), (got.dtype, want.dtype)
    assert got.tobytes() == np.ascontiguousarray(want).astype(got.dtype).tobytes()


def ts_read(path: Path, zarr_format: int) -> np.ndarray:
    spec = {"driver": "zarr3" if zarr_format == 3 else "zarr", "kvstore": {"driver": "file", "path": str(path)}}
    return ts.open(spec, open=True, read=True).result().read().result()


# ---- 1. they write, zarrgpu reads ----------------------------------------------------------

V3_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float16", "float32", "float64", "complex64", "complex128"]

V3_CODECS = {
    "zstd1_checksum": dict(compressors=[zc.ZstdCodec(level=1, checksum=True)]),
    "gzip6": dict(compressors=[zc.GzipCodec(level=6)]),
    "zstd_crc32c": dict(compressors=[zc.ZstdCodec(level=3), zc.Crc32cCodec()]),
    "raw": dict(compressors=None),
    "big_endian": dict(serializer=zc.BytesCodec(endian="big"), compressors=[zc.ZstdCodec(level=3)]),
    "transpose": dict(filters=[zc.TransposeCodec(order=(1, 0))], compressors=[zc.GzipCodec(level=1)]),
    "sharded_end": dict(chunks=(4, 5), shards=(8, 10), compressors=[zc.ZstdCodec(level=3)]),
    "sharded_start": dict(serializer=zc.ShardingCodec(chunk_shape=(4, 5), codecs=[zc.BytesCodec(), zc.ZstdCodec()],
                                                      index_location="start")),
}
for cname in ("lz4", "lz4hc", "blosclz", "zstd", "zlib"):
    for shuffle in ("noshuffle", "shuffle", "bitshuffle"):
        V3_CODECS[f"blosc_{cname}_{shuffle}"] = dict(
            compressors=[zc.BloscCodec(cname=cname, clevel=5, shuffle=shuffle, typesize=4)])


def write_v3(path: Path, data: np.ndarray, **kw) -> None:
    kw.setdefault("chunks", CHUNKS)
    a = zarr.create_array(store=str(path), shape=data.shape, dtype=data.dtype, zarr_format=3, **kw)
    a[...] = data


@pytest.mark.parametrize("dtype", V3_DTYPES)
def test_zarrgpu_reads_zarr_python_v3_dtypes(run_zarrgpu, tmp_path, dtype):
    data = sample(dtype)
    write_v3(tmp_path / "a.zarr", data, compressors=[zc.ZstdCodec(level=3)])
    assert_same(cat(run_zarrgpu, tmp_path / "a.zarr", tmp_path / "a.npy"), data)


@pytest.mark.parametrize("name", sorted(V3_CODECS))
def test_zarrgpu_reads_zarr_python_v3_codecs(run_zarrgpu, tmp_path, name):
    data = sample("float32", seed=1)
    kw = dict(V3_CODECS[name])
    if "serializer" in kw and isinstance(kw["serializer"], zc.ShardingCodec):
        kw["chunks"] = (8, 10)
    write_v3(tmp_path / "a.zarr", data, **kw)
    assert_same(cat(run_zarrgpu, tmp_path / "a.zarr", tmp_path / "a.npy"), data)


def test_zarrgpu_reads_missing_chunks_as_fill_value(run_zarrgpu, tmp_path):
    a = zarr.create_array(store=str(tmp_path / "h.zarr"), shape=SHAPE, chunks=CHUNKS, dtype="int32",
                          fill_value=-7, zarr_format=3)
    a[0:8, 0:10] = 5
    a[30:, 20:] = 9
    assert_same(cat(run_zarrgpu, tmp_path / "h.zarr", tmp_path / "h.npy"), a[...])


V2_CASES = {
    "zstd_f4": dict(dtype="<f4", compressors=numcodecs.Zstd(level=3)),
    "blosc_lz4_shuffle_i4": dict(dtype="<i4", compressors=numcodecs.Blosc("lz4", 5, numcodecs.Blosc.SHUFFLE)),
    "blosc_zstd_bitshuffle_f8": dict(dtype="<f8", compressors=numcodecs.Blosc("zstd", 3, numcodecs.Blosc.BITSHUFFLE)),
    "gzip_u2": dict(dtype="<u2", compressors=numcodecs.GZip(level=6)),
    "zlib_i8": dict(dtype="<i8", compressors=numcodecs.Zlib(level=4)),
    "lz4_f4": dict(dtype="<f4", compressors=numcodecs.LZ4()),
    "shuffle_zstd_f4": dict(dtype="<f4", filters=[numcodecs.Shuffle(elementsize=4)], compressors=numcodecs.Zstd()),
    "delta_zstd_i4": dict(dtype="<i4", filters=[numcodecs.Delta(dtype="<i4")], compressors=numcodecs.Zstd()),
    "fso_f8": dict(dtype="<f8", filters=[numcodecs.FixedScaleOffset(offset=250, scale=100, dtype="<f8",
                                                                   astype="<i4")],
                   compressors=numcodecs.Zstd()),
    "order_F_f4": dict(dtype="<f4", order="F", compressors=numcodecs.Zstd()),
    "big_endian_f4": dict(dtype=">f4", compressors=numcodecs.Zstd()),
    "big_endian_i2": dict(dtype=">i2", compressors=None),
    "slash_separator_u1": dict(dtype="|u1", compressors=numcodecs.Zstd(),
                               chunk_key_encoding={"name": "v2", "separator": "/"}),
    "bool": dict(dtype="|b1", compressors=numcodecs.Zstd()),
    "int8": dict(dtype="|i1", compressors=numcodecs.Blosc("blosclz", 5, numcodecs.Blosc.NOSHUFFLE)),
    "uint64": dict(dtype="<u8", compressors=numcodecs.Zstd()),
    "float16": dict(dtype="<f2", compressors=numcodecs.Zstd()),
    "complex64": dict(dtype="<c8", compressors=numcodecs.Zstd()),
    "complex128": dict(dtype="<c16", compressors=numcodecs.GZip()),
}


def write_v2(path: Path, data: np.ndarray, **kw) -> zarr.Array:
    kw.pop("dtype", None)
    a = zarr.create_array(store=str(path), shape=data.shape, chunks=CHUNKS, dtype=data.dtype, zarr_format=2, **kw)
    a[...] = data
    return a


@pytest.mark.parametrize("name", sorted(V2_CASES))
def test_zarrgpu_reads_zarr_python_v2(run_zarrgpu, tmp_path, name):
    case = V2_CASES[name]
    data = sample(case["dtype"], seed=2)
    if name == "fso_f8":
        data = np.round(data, 2)
    write_v2(tmp_path / "a.zarr", data, **case)
    ref = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")[...]
    assert_same(cat(run_zarrgpu, tmp_path / "a.zarr", tmp_path / "a.npy"), ref)


@pytest.mark.parametrize("case", ["sharded_index_start", "transpose_blosc", "nested_shards"])
def test_zarrgpu_reads_tensorstore_v3(run_zarrgpu, tmp_path, case):
    data = sample("float64", seed=3)
    codecs = {
        "sharded_index_start": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4, 5], "index_location": "start",
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd"}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}],
        "transpose_blosc": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                            {"name": "bytes", "configuration": {"endian": "big"}},
                            {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle",
                                                               "typesize": 8}}],
        "nested_shards": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4, 5],
            "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 5]}}]}}],
    }[case]
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(tmp_path / "t.zarr")},
            "metadata": {"shape": list(SHAPE), "data_type": "float64", "codecs": codecs,
                         "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 10]}}},
            "create": True}
    t = ts.open(spec).result()
    t.write(data).result()
    assert_same(cat(run_zarrgpu, tmp_path / "t.zarr", tmp_path / "t.npy"), data)


# ---- 2. zarrgpu writes, they read --------------------------------------------------------

CONVERSIONS = {
    "v3_zstd_rechunk": ["--format", "3", "--chunks", "1,23", "--codec", "zstd:3"],
    "v3_sharded_blosc": ["--format", "3", "--chunks", "4,5", "--shard", "8,10", "--codec", "blosc:lz4:5:shuffle"],
    "v3_gzip_crc32c": ["--format", "3", "--chunks", "full,7", "--codec", "gzip:6+crc32c"],
    "v3_keep_codecs": ["--format", "3"],
    "v3_raw": ["--format", "3", "--codec", "none"],
    "v2_zstd": ["--format", "2", "--chunks", "5,5", "--codec", "zstd:1"],
    "v2_blosc": ["--format", "2", "--codec", "blosc:zstd:3:bitshuffle"],
    "v2_keep": ["--format", "2"],
}
SOURCES = {
    "v2_f4_delta": lambda p: write_v2(p, sample("<f4", seed=4), filters=[numcodecs.Delta(dtype="<f4")],
                                      compressors=numcodecs.Zstd()),
    "v2_i8_big_endian": lambda p: write_v2(p, sample(">i8", seed=5), compressors=numcodecs.GZip()),
    "v3_u2_sharded": lambda p: write_v3(p, sample("uint16", seed=6), chunks=(4, 5), shards=(8, 10)),
    "v3_c8_transpose": lambda p: write_v3(p, sample("complex64", seed=7), filters=[zc.TransposeCodec(order=(1, 0))]),
    "v3_bool": lambda p: write_v3(p, sample("bool", seed=8)),
}


def zarr_format_of(path: Path) -> int:
    return 3 if (path / "zarr.json").exists() else 2


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("conversion", sorted(CONVERSIONS))
def test_convert_read_back_by_zarr_python_and_tensorstore(run_zarrgpu, tmp_path, source, conversion):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    SOURCES[source](src)
    want = zarr.open_array(str(src), mode="r")[...]
    r = run_zarrgpu("convert", src, dst, "--quiet", *CONVERSIONS[conversion])
    assert r.returncode == 0, r.stderr
    fmt = zarr_format_of(dst)
    assert fmt == int(CONVERSIONS[conversion][1])
    got_zarr = zarr.open_array(str(dst), mode="r")[...]
    assert_same(got_zarr.astype(got_zarr.dtype.newbyteorder("<")), want)
    if fmt == 3 and "numcodecs." in (dst / "zarr.json").read_text():
        return  # a v2 filter carried into format 3 as numcodecs.*: TensorStore has no such codecs
    if fmt == 2 and json.loads((dst / ".zarray").read_text())["filters"]:
        return  # TensorStore's zarr driver does not support v2 filters
    got_ts = ts_read(dst, fmt)
    assert_same(np.asarray(got_ts).astype(np.asarray(got_ts).dtype.newbyteorder("<")), want)
    assert_same(cat(run_zarrgpu, dst, tmp_path / "d.npy"), want)


@pytest.mark.parametrize("variant,fmt", [("zstd", 3), ("sharded", 3), ("raw", 3), ("zstd", 2)])
def test_generated_read_back_by_zarr_python_and_tensorstore(run_zarrgpu, tmp_path, variant, fmt):
    dst = tmp_path / "g.zarr"
    r = run_zarrgpu("generate", "era5", dst, "--variant", variant, "--format", fmt, "--time", "5",
                    "--channels", "3", "--lat", "19", "--lon", "36", "--seed", "11", "--quiet")
    assert r.returncode == 0, r.stderr
    mine = cat(run_zarrgpu, dst, tmp_path / "d.npy", array="data")
    assert mine.shape == (5, 3, 19, 36) and mine.dtype == np.float32
    g = zarr.open_group(str(dst), mode="r")
    assert_same(g["data"][...], mine)
    assert_same(np.asarray(ts_read(dst / "data", fmt)), mine)
    for coord in ("time", "lat", "lon"):
        assert_same(g[coord][...], cat(run_zarrgpu, dst, tmp_path / f"{coord}.npy", array=coord))
        assert_same(np.asarray(ts_read(dst / coord, fmt)), g[coord][...])
    meta = json.loads((dst / ("zarr.json" if fmt == 3 else ".zmetadata")).read_text())
    assert meta  # consolidated metadata present


def test_convert_generated_era5_to_one_step_per_chunk(run_zarrgpu, tmp_path):
    import xarray as xr

    src, dst = tmp_path / "e.zarr", tmp_path / "r.zarr"
    assert run_zarrgpu("generate", "era5", src, "--format", "2", "--time", "4", "--lat", "19", "--lon", "36",
                       "--quiet").returncode == 0
    r = run_zarrgpu("convert", src, dst, "--format", "3", "--chunks", "time=1,channel=1", "--codec", "zstd:3",
                    "--quiet")
    assert r.returncode == 0, r.stderr
    a, b = xr.open_zarr(src), xr.open_zarr(dst)
    xr.testing.assert_identical(a.compute(), b.compute())
    assert b["data"].encoding["chunks"] == (1, 1, 19, 36)


# ---- 3. the whole corpus through convert ---------------------------------------------------

def _corpus_stores() -> dict[str, list[dict]]:
    from _zarrgpu_corpus import expected_arrays

    stores: dict[str, list[dict]] = {}
    for _, entry in expected_arrays():
        stores.setdefault(entry["store"], []).append(entry)
    return stores


CORPUS_STORES = _corpus_stores()


def _conversion_args(kind: str, entries: list[dict]) -> list[str]:
    if kind == "v3_keep_codecs":
        return ["--format", "3"]
    if kind == "v2_zstd":
        return ["--format", "2", "--codec", "zstd:1"]
    args = ["--format", "3", "--codec", "blosc:lz4:5:shuffle"]
    if len(entries) == 1 and entries[0]["shape"]:  # one chunk for the whole array
        args += ["--chunks", ",".join(["full"] * len(entries[0]["shape"]))]
    return args


@pytest.mark.parametrize("kind", ["v3_keep_codecs", "v2_zstd", "v3_one_chunk_blosc"])
@pytest.mark.parametrize("store", sorted(CORPUS_STORES), ids=lambda s: Path(s).name)
def test_convert_corpus_preserves_contents(run_zarrgpu, tmp_path, store, kind):
    import hashlib

    entries = CORPUS_STORES[store]
    dst = tmp_path / "out.zarr"
    r = run_zarrgpu("convert", store, dst, "--quiet", *_conversion_args(kind, entries))
    assert r.returncode == 0, r.stderr
    for e in entries:
        got = cat(run_zarrgpu, dst, tmp_path / "x.npy", array=e["array"])
        assert list(got.shape) == e["shape"]
        assert hashlib.sha256(np.ascontiguousarray(got).tobytes()).hexdigest() == e["sha256"], e
