"""numcodecs codecs and the spellings other writers use (issue 31, items 6 and 7).

Every store here is written by zarr-python 3 (formats 2 and 3) with numcodecs, or
by zarrgpu and read back by zarr-python; zarrgpu's read must equal zarr-python's.
Corrupt chunks of the new codecs are CorruptDataError naming array, chunk and codec.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")
zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zn = pytest.importorskip("zarr.codecs.numcodecs")

warnings.filterwarnings("ignore", message="Numcodecs codecs are not in the Zarr version 3")

SHAPE, CHUNKS = (20, 30), (8, 16)


def sample(dtype: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == bool:
        return rng.random(SHAPE) > 0.6
    if dt.kind == "f":
        return (np.cumsum(rng.normal(size=SHAPE), axis=1) * 10).astype(dt)
    return np.cumsum(rng.integers(-20, 20, SHAPE), axis=1).astype(dt)


def write(path: Path, data: np.ndarray, zarr_format: int, filters=None, compressors=None) -> None:
    kw = {}
    if filters is not None:
        kw["filters"] = filters
    kw["compressors"] = compressors
    a = zarr.create_array(store=str(path), shape=data.shape, chunks=CHUNKS, dtype=data.dtype,
                          zarr_format=zarr_format, **kw)
    a[...] = data


def assert_reads_like_zarr_python(path: Path) -> np.ndarray:
    want = zarr.open_array(str(path), mode="r")[...]
    got = zarrgpu.open(path)[...]
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    return got


# name -> (dtype, v2 filters, v2 compressor, v3 filters, v3 compressors)
CASES = {
    "bz2": ("<f4", None, numcodecs.BZ2(level=5), None, [zn.BZ2(level=5)]),
    "lzma": ("<i4", None, numcodecs.LZMA(), None, [zn.LZMA()]),
    "lzma_alone": ("<f8", None, numcodecs.LZMA(format=2), None, [zn.LZMA(format=2)]),
    "lzma_raw_filters": ("<i4", None, numcodecs.LZMA(format=3, filters=[{"id": 3, "dist": 4}, {"id": 33, "preset": 1}]),
                         None, [zn.LZMA(format=3, filters=[{"id": 3, "dist": 4}, {"id": 33, "preset": 1}])]),
    "crc32": ("<f4", None, numcodecs.CRC32(), None, [zn.CRC32()]),
    "crc32_end": ("<f4", None, numcodecs.CRC32(location="end"), None, [zn.CRC32(location="end")]),
    "adler32": ("<i2", None, numcodecs.Adler32(), None, [zn.Adler32()]),
    "crc32c": ("<f8", None, numcodecs.CRC32C(), None, [zn.CRC32C()]),
    "fletcher32": ("<u2", None, numcodecs.Fletcher32(), None, [zn.Fletcher32()]),
    "zstd_then_crc32": ("<f4", [numcodecs.CRC32()], numcodecs.Zstd(level=3), None, [zn.Zstd(level=3), zn.CRC32()]),
    "quantize": ("<f8", [numcodecs.Quantize(digits=3, dtype="<f8")], numcodecs.Zstd(),
                 [zn.Quantize(digits=3, dtype="<f8")], [zn.Zstd()]),
    "quantize_f4": ("<f4", [numcodecs.Quantize(digits=1, dtype="<f4")], None, [zn.Quantize(digits=1, dtype="<f4")], None),
    "quantize_astype": ("<f8", [numcodecs.Quantize(digits=2, dtype="<f8", astype="<f4")], numcodecs.Zstd(), None, None),
    "bitround": ("<f4", [numcodecs.BitRound(keepbits=5)], numcodecs.Zstd(), [zn.BitRound(keepbits=5)], [zn.Zstd()]),
    "bitround_f8": ("<f8", [numcodecs.BitRound(keepbits=20)], None, [zn.BitRound(keepbits=20)], None),
    "packbits": ("|b1", [numcodecs.PackBits()], numcodecs.Zstd(), [zn.PackBits()], [zn.Zstd()]),
    "astype": ("<f8", [numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8")], numcodecs.Zstd(),
               [zn.AsType(encode_dtype="<f4", decode_dtype="<f8")], [zn.Zstd()]),
    "astype_int": ("<i8", [numcodecs.AsType(encode_dtype="<i2", decode_dtype="<i8")], numcodecs.LZ4(),
                   [zn.AsType(encode_dtype="<i2", decode_dtype="<i8")], [zn.LZ4()]),
    "delta_bool": ("|b1", [numcodecs.Delta(dtype="|b1")], numcodecs.Zstd(), [zn.Delta(dtype="|b1")], [zn.Zstd()]),
    "crc32c_compressor_zstd_filter": ("<i4", [numcodecs.Zstd(level=1)], numcodecs.CRC32C(), None, None),
    "gzip_level_minus_1": ("<f4", None, numcodecs.GZip(level=-1), None, [zn.GZip(level=-1)]),
    "zstd_level_100": ("<f4", None, numcodecs.Zstd(level=100), None, [zn.Zstd(level=100)]),
    "zlib_level_minus_1": ("<i4", None, numcodecs.Zlib(level=-1), None, [zn.Zlib(level=-1)]),
}


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("name", sorted(CASES))
def test_reads_numcodecs_codecs_like_zarr_python(tmp_path, name, zarr_format):
    dtype, f2, c2, f3, c3 = CASES[name]
    if zarr_format == 3 and f3 is None and c3 is None and (f2 is not None or c2 is not None):
        pytest.skip("format 2 only (zarr-python cannot read it back in format 3)")
    data = sample(dtype, seed=len(name))
    path = tmp_path / "a.zarr"
    if zarr_format == 2:
        write(path, data, 2, filters=f2, compressors=c2)
    else:
        write(path, data, 3, filters=f3, compressors=c3)
    got = assert_reads_like_zarr_python(path)
    if not name.startswith(("quantize", "bitround", "delta_bool", "astype")) or name == "astype_int":
        np.testing.assert_array_equal(got, data)  # lossless


def rewrite(path: Path, doc: str, edit) -> None:
    meta = json.loads((path / doc).read_text())
    edit(meta)
    (path / doc).write_text(json.dumps(meta))


ALIASES = {  # a filter dtype spelled as NumPy takes it, and the array's dtype
    "int32": "<i4", "i4": "<i4", "intc": "<i4", "float64": "<f8", "f8": "<f8", "<f8": "<f8", "double": "<f8",
    "float": "<f8", "d": "<f8", "int16": "<i2", "uint8": "|u1", "u1": "|u1", "float32": "<f4", "single": "<f4",
}


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_filter_dtypes_as_numpy_names_v2(tmp_path, alias):
    dtype = ALIASES[alias]
    data = sample(dtype, seed=3)
    path = tmp_path / "a.zarr"
    write(path, data, 2, filters=[numcodecs.Delta(dtype=dtype)], compressors=numcodecs.Zstd())
    rewrite(path, ".zarray", lambda m: m["filters"][0].update(dtype=alias, astype=alias))
    got = assert_reads_like_zarr_python(path)
    if data.dtype.kind != "f":  # float differences round
        np.testing.assert_array_equal(got, data)


@pytest.mark.parametrize("alias", ["float64", "f8", "double"])
def test_filter_dtypes_as_numpy_names_in_every_numcodecs_filter(tmp_path, alias):
    data = sample("<f8", seed=5)
    filters = {
        "fixedscaleoffset": [numcodecs.FixedScaleOffset(offset=1, scale=10, dtype="<f8", astype="<i4")],
        "quantize": [numcodecs.Quantize(digits=2, dtype="<f8")],
        "astype": [numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8")],
    }
    for name, f in filters.items():
        path = tmp_path / f"{name}.zarr"
        write(path, data, 2, filters=f, compressors=numcodecs.Zstd())

        def edit(m, name=name):
            c = m["filters"][0]
            if name == "astype":
                c.update(decode_dtype=alias, encode_dtype="float32")
            else:
                c.update(dtype=alias)
                c["astype"] = {"fixedscaleoffset": "int32", "quantize": alias}[name]
        rewrite(path, ".zarray", edit)
        assert_reads_like_zarr_python(path)
    # Format 3 keeps the configuration as written: zarr-python writes the alias itself.
    path = tmp_path / "v3.zarr"
    write(path, data, 3, filters=[zn.FixedScaleOffset(offset=0, scale=1000, dtype=alias, astype="int32"),
                                  zn.Delta(dtype="int32")], compressors=None)
    assert f'"dtype": "{alias}"' in (path / "zarr.json").read_text()
    assert_reads_like_zarr_python(path)


@pytest.mark.parametrize("fill", [0, 1, 0.0, 2])
def test_v2_bool_fill_value_as_a_number(tmp_path, fill):
    path = tmp_path / "b.zarr"
    a = zarr.create_array(store=str(path), shape=(10,), chunks=(4,), dtype=bool, zarr_format=2, fill_value=False)
    a[:4] = True  # chunks 1 and 2 are missing: they read as the fill value
    rewrite(path, ".zarray", lambda m: m.update(fill_value=fill))
    got = assert_reads_like_zarr_python(path)
    assert got[4:].all() == bool(fill)
    assert zarrgpu.open(path).fill_value == bool(fill)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_out_of_range_levels_read(tmp_path, zarr_format):
    """Levels matter for encoding only: what other writers leave in the metadata never stops a read."""
    data = sample("<f4", seed=9)
    edits = {  # written at a valid level, then the metadata says another
        "blosc_clevel_12": (numcodecs.Blosc(cname="zstd", clevel=5), zn.Blosc(cname="zstd", clevel=5), "clevel", 12),
        "zstd_level_1000": (numcodecs.Zstd(level=3), zn.Zstd(level=3), "level", 1000),
        "gzip_level_42": (numcodecs.GZip(level=3), zn.GZip(level=3), "level", 42),
        "bz2_level_0": (numcodecs.BZ2(level=3), zn.BZ2(level=3), "level", 0),
        "lzma_preset_99": (numcodecs.LZMA(preset=1), zn.LZMA(preset=1), "preset", 99),
    }
    for name, (c2, c3, key, value) in edits.items():
        path = tmp_path / f"{name}.zarr"
        write(path, data, zarr_format, compressors=c2 if zarr_format == 2 else [c3])
        if zarr_format == 2:
            rewrite(path, ".zarray", lambda m: m["compressor"].update({key: value}))
        else:
            rewrite(path, "zarr.json", lambda m: m["codecs"][-1]["configuration"].update({key: value}))
        np.testing.assert_array_equal(zarrgpu.open(path)[...], data, err_msg=name)
    # Format 3's own zstd and gzip codecs too (zarr-python refuses these levels, zarrgpu reads them).
    for codec, key, value in [(zarr.codecs.ZstdCodec(level=3), "level", 100), (zarr.codecs.GzipCodec(level=1), "level", -1)]:
        path = tmp_path / f"core_{codec.to_dict()['name']}.zarr"
        write(path, data, 3, compressors=[codec])
        rewrite(path, "zarr.json", lambda m: m["codecs"][-1]["configuration"].update({key: value}))
        np.testing.assert_array_equal(zarrgpu.open(path)[...], data)


# ---- corrupt chunks --------------------------------------------------------------------

CORRUPTIBLE = {  # codec name zarrgpu reports -> v3 compressors, dtype
    "numcodecs.bz2": ([zn.BZ2(level=1)], "<f4"),
    "numcodecs.lzma": ([zn.LZMA()], "<f4"),
    "numcodecs.crc32": ([zn.CRC32()], "<f4"),
    "numcodecs.adler32": ([zn.Adler32()], "<f4"),
    "numcodecs.crc32c": ([zn.CRC32C()], "<f4"),
    "numcodecs.fletcher32": ([zn.Fletcher32()], "<f4"),
}


@pytest.mark.parametrize("how", ["flip", "truncate"])
@pytest.mark.parametrize("codec", sorted(CORRUPTIBLE))
def test_corrupt_chunk_names_array_chunk_and_codec(tmp_path, codec, how):
    compressors, dtype = CORRUPTIBLE[codec]
    path = tmp_path / "g.zarr"
    zarr.create_group(str(path))
    a = zarr.create_array(store=str(path), name="var", shape=SHAPE, chunks=CHUNKS, dtype=dtype, compressors=compressors)
    a[...] = sample(dtype, seed=2)
    chunk = path / "var" / "c" / "1" / "0"
    b = bytearray(chunk.read_bytes())
    if how == "flip":
        b[len(b) // 2] ^= 0x55
    else:
        del b[len(b) * 2 // 3:]
    chunk.write_bytes(bytes(b))
    arr = zarrgpu.open(path, path="var")
    with pytest.raises(zarrgpu.CorruptDataError) as info:
        arr[...]
    e = info.value
    assert e.codec == codec, str(e)
    assert e.chunk_key.endswith("var/c/1/0"), str(e)
    assert e.array == "var", str(e)
    np.testing.assert_array_equal(arr[:8, :16], a[:8, :16])  # the intact chunks still read


def test_packbits_padding_count_corrupt_v2(tmp_path):
    path = tmp_path / "p.zarr"
    data = sample("|b1", seed=4)
    write(path, data, 2, filters=[numcodecs.PackBits()], compressors=None)
    chunk = path / "0.0"
    b = bytearray(chunk.read_bytes())
    b[0] = 3
    chunk.write_bytes(bytes(b))
    with pytest.raises(zarrgpu.CorruptDataError) as info:
        zarrgpu.open(path)[...]
    assert info.value.codec == "numcodecs.packbits"
    assert info.value.chunk_key.endswith("0.0")


# ---- zarrgpu writes, zarr-python reads -----------------------------------------------------

WRITES_V3 = {  # codecs -> dtype; compared with the data where lossless, else with zarr-python's own write
    "bz2": ([{"name": "numcodecs.bz2", "configuration": {"level": 9}}], "<f4", True),
    "lzma": ([{"name": "numcodecs.lzma", "configuration": {}}], "<i4", True),
    "lzma_raw": ([{"name": "numcodecs.lzma", "configuration": {"format": 3, "filters": [{"id": 33, "preset": 1}]}}],
                 "<i4", True),
    "checksums": (["numcodecs.zstd", "numcodecs.crc32", "numcodecs.adler32", "numcodecs.fletcher32",
                   {"name": "numcodecs.crc32c", "configuration": {"location": "start"}}], "<f8", True),
    "packbits": ([{"name": "numcodecs.packbits", "configuration": {}}, "bytes", "zstd"], "|b1", True),
    "astype": ([{"name": "numcodecs.astype", "configuration": {"encode_dtype": "<i2", "decode_dtype": "<i8"}},
                "bytes"], "<i8", True),
    "quantize": ([{"name": "numcodecs.quantize", "configuration": {"digits": 2, "dtype": "<f8"}}, "bytes"], "<f8", False),
    "bitround": ([{"name": "numcodecs.bitround", "configuration": {"keepbits": 7}}, "bytes", "gzip"], "<f4", False),
    "delta_bool": ([{"name": "numcodecs.delta", "configuration": {"dtype": "bool"}}, "bytes"], "|b1", False),
}


def zarr_python_codecs(codecs):
    """The same chain as zarr-python objects, for its own write."""
    out = {"filters": [], "compressors": []}
    for c in codecs:
        c = {"name": c, "configuration": {}} if isinstance(c, str) else c
        name, cfg = c["name"], c.get("configuration", {})
        if name == "bytes":
            continue
        if name in ("zstd", "gzip"):
            out["compressors"].append({"zstd": zarr.codecs.ZstdCodec, "gzip": zarr.codecs.GzipCodec}[name](**cfg))
            continue
        cls = {"bz2": zn.BZ2, "lzma": zn.LZMA, "zstd": zn.Zstd, "crc32": zn.CRC32, "adler32": zn.Adler32,
               "fletcher32": zn.Fletcher32, "crc32c": zn.CRC32C, "packbits": zn.PackBits, "astype": zn.AsType,
               "quantize": zn.Quantize, "bitround": zn.BitRound, "delta": zn.Delta}[name.split(".")[1]]
        kind = "filters" if name.split(".")[1] in ("packbits", "astype", "quantize", "bitround", "delta") else "compressors"
        out[kind].append(cls(**cfg))
    return out


@pytest.mark.parametrize("name", sorted(WRITES_V3))
def test_zarrgpu_writes_numcodecs_codecs_zarr_python_reads(tmp_path, name):
    codecs, dtype, lossless = WRITES_V3[name]
    data = sample(dtype, seed=7)
    ours = tmp_path / "ours.zarr"
    a = zarrgpu.create_array(ours, shape=data.shape, chunks=CHUNKS, dtype=dtype, codecs=codecs)
    a[...] = data
    theirs_read = zarr.open_array(str(ours), mode="r")[...]
    np.testing.assert_array_equal(zarrgpu.open(ours)[...], theirs_read)
    if lossless:
        np.testing.assert_array_equal(theirs_read, data)
    else:
        ref = tmp_path / "ref.zarr"
        write(ref, data, 3, **zarr_python_codecs(codecs))
        np.testing.assert_array_equal(theirs_read, zarr.open_array(str(ref), mode="r")[...])


@pytest.mark.parametrize("compressor,filters", [
    ({"id": "bz2", "level": 3}, None),
    ({"id": "lzma"}, None),
    ({"id": "crc32"}, [{"id": "fletcher32"}]),
    ({"id": "crc32c"}, [{"id": "adler32", "location": "end"}]),
    ({"id": "zstd"}, [{"id": "quantize", "digits": 3, "dtype": "<f8"}]),
    ({"id": "zlib"}, [{"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}]),
    (None, [{"id": "bitround", "keepbits": 9}]),
])
def test_zarrgpu_writes_v2_numcodecs_zarr_python_reads(tmp_path, compressor, filters):
    data = sample("<f8", seed=8)
    ours = tmp_path / "ours.zarr"
    a = zarrgpu.create_array(ours, shape=data.shape, chunks=CHUNKS, dtype="<f8", zarr_format=2,
                             compressor=compressor, filters=filters)
    a[...] = data
    want = zarr.open_array(str(ours), mode="r")[...]
    np.testing.assert_array_equal(zarrgpu.open(ours)[...], want)
    ref = tmp_path / "ref.zarr"
    write(ref, data, 2, filters=[numcodecs.get_codec(dict(f)) for f in filters] if filters else None,
          compressors=numcodecs.get_codec(dict(compressor)) if compressor else None)
    np.testing.assert_array_equal(want, zarr.open_array(str(ref), mode="r")[...])
