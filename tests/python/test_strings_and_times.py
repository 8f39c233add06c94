"""Strings, bytes and times (issue 31, items 3 and 4), against zarr-python, numcodecs and
xarray engine="zarr" on stores they write here: fixed-length strings and bytes (v2 "|S",
"<U", ">U", "|V"; v3 null_terminated_bytes, fixed_length_utf32, raw_bytes), variable-length
strings and bytes (v2 "|O" + vlen-utf8 / vlen-bytes; v3 string / variable_length_bytes),
datetime64 / timedelta64 of any unit (v2 "<M8[..]", v3 numpy.datetime64 / numpy.timedelta64)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
xr = pytest.importorskip("xarray")

import zarrgpu  # noqa: E402
from zarrgpu.errors import InvalidArgumentError, UnsupportedError  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning")

VLEN_BYTES = zarr.core.dtype.VariableLengthBytes()

# name -> (zarr-python dtype, values with empty and non-ASCII elements, a fill value)
CASES = {
    "S": ("S5", np.array([b"ab", b"", b"xyz\x00", b"\xff\x01", b"hello", b"q"], dtype="S5"), b"zz"),
    "U": ("<U4", np.array(["ab", "", "héllo"[:4], "日本語", "a\x00b", "z"], dtype="<U4"), "fé"),
    "V": ("V3", np.array([b"ab\x00", b"\x00\x00\x00", b"xyz", b"\xff\x01\x02", b"123", b"q\x00\x00"], dtype="V3"),
          b"\x01\x02\x03"),
    "string": (str, np.array(["a", "", "héllo wörld", "日本語", "x" * 300, "z"], dtype=object), "fill"),
    "bytes": (VLEN_BYTES, np.array([b"a", b"", b"\xff\x00\x01", b"long" * 100, b"\x00", b"z"], dtype=object),
              b"\x00f"),
    "M8s": ("M8[s]", np.array(["2020-01-01T00:00:01", "NaT", "1970-01-01", "1900-02-03", "2262-01-01", "2000-01-01"],
                              dtype="M8[s]"), np.datetime64("1999-12-31T23:59:59", "s")),
    "M8ns": ("M8[ns]", np.array(["2020-01-01", "NaT", "1970-01-01", "1900-02-03", "2262-01-01", "2000-01-01"],
                                dtype="M8[ns]"), np.datetime64("NaT", "ns")),
    "M8D10": ("M8[10D]", np.array(["2020-01-01", "NaT", "1970-01-01", "1900-02-03", "2200-01-01", "2000-01-01"],
                                  dtype="M8[10D]"), np.datetime64("2000-01-01", "10D")),
    "m8ms": ("m8[ms]", np.array([1, -2, "NaT", 0, 2**40, 7], dtype="m8[ms]"), np.timedelta64(5, "ms")),
    "m8": ("m8", np.array([1, -2, "NaT", 0, 2**40, 7], dtype="m8"), np.timedelta64(3)),
}


def _zarr_python_array(path, fmt, dtype, fill_value, shape=(6,), chunks=(4,), compressors="auto"):
    kwargs = {} if compressors == "auto" else {"compressors": compressors}
    return zarr.create_array(str(path), shape=shape, chunks=chunks, dtype=dtype, zarr_format=fmt,
                             fill_value=fill_value, **kwargs)


def _assert_same(got: np.ndarray, want: np.ndarray):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if got.dtype.kind in "Mm":
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))  # NaT bit patterns too
    elif got.dtype.kind == "V":
        assert got.tobytes() == want.tobytes()
    else:
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("case", sorted(CASES))
def test_reads_equal_zarr_python(tmp_path, fmt, case):
    dtype, values, fill = CASES[case]
    path = tmp_path / f"{case}.zarr"
    a = _zarr_python_array(path, fmt, dtype, fill, shape=(10,), chunks=(4,))
    a[:6] = values  # chunk 2 ([8, 10)) stays missing: the fill value
    want = zarr.open_array(str(path), mode="r")
    got = zarrgpu.open(str(path))
    assert got.dtype == want.dtype
    _assert_same(got[:], want[:])
    full = want[:]  # zarr-python takes no negative steps: NumPy selects from its full read
    for sel in (slice(1, 9, 3), slice(None, None, -1), 5, slice(7, 10), slice(3, 3)):
        _assert_same(got[sel], full[sel, ...])  # [i, ...]: a 0-d array of the array's dtype, as ours
    # The fill value as zarr-python gives it (NaT included).
    wf, gf = want.fill_value, got.fill_value
    if isinstance(wf, (np.datetime64, np.timedelta64)):
        assert gf.dtype == wf.dtype and gf.view(np.int64) == wf.view(np.int64)
    elif isinstance(wf, np.void):
        assert gf.tobytes() == wf.tobytes()
    else:
        assert gf == wf and type(gf) is type(wf)


@pytest.mark.parametrize("fmt", [2, 3])
def test_default_fill_values_and_all_missing(tmp_path, fmt):
    # zarr-python's defaults: "" / b"" for strings and bytes, NaT for times; nothing stored.
    for case, (dtype, values, _) in CASES.items():
        path = tmp_path / f"{case}.zarr"
        _zarr_python_array(path, fmt, dtype, None, shape=(5,), chunks=(2,))
        want = zarr.open_array(str(path), mode="r")[:]
        _assert_same(zarrgpu.open(str(path))[:], want)


@pytest.mark.parametrize("fmt", [2, 3])
def test_two_dimensional_partial_selections(tmp_path, fmt):
    rng = np.random.default_rng(3)
    words = np.array(["", "a", "ß", "日本", "longer text", "x\ty"], dtype=object)
    values = words[rng.integers(0, len(words), size=(7, 5))]
    path = tmp_path / "s2.zarr"
    a = _zarr_python_array(path, fmt, str, "-", shape=(9, 5), chunks=(3, 2))
    a[:7] = values
    want = zarr.open_array(str(path), mode="r")[:]
    got = zarrgpu.open(str(path))
    for sel in ((slice(None), slice(None)), (slice(1, 8, 2), slice(4, 0, -1)), (2, slice(None)), (slice(None), 3),
                (8, 4), (slice(5, 9), slice(1, 3))):
        _assert_same(got[sel], want[sel + (Ellipsis,)])


@pytest.mark.parametrize("order", ["<U3", ">U3"])
def test_v2_utf32_either_byte_order(tmp_path, order):
    # zarr-python 3 writes v2 "<U" only; ">U" is what other v2 writers (zarr-python 2 on
    # request) leave: the same "U" dtype, UTF-32 code units stored big-endian.
    values = np.array(["ab", "日本語", "", "é"], dtype=order)
    path = tmp_path / "u.zarr"
    path.mkdir()
    (path / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [4], "chunks": [3], "dtype": order, "fill_value": "zé",
        "order": "C", "compressor": None, "filters": None}))
    (path / "0").write_bytes(values[:3].tobytes())
    got = zarrgpu.open(str(path))
    want = zarr.open_array(str(path), mode="r")
    assert got.dtype == np.dtype("<U3")
    assert got[:].tolist() == ["ab", "日本語", "", "zé"] == want[:].tolist()


@pytest.mark.parametrize("fmt", [2, 3])
def test_compressed_vlen_chunks_and_numcodecs_layout(tmp_path, fmt):
    numcodecs = pytest.importorskip("numcodecs")
    values = np.array(["α", "", "βγ", "plain"], dtype=object)
    path = tmp_path / "c.zarr"
    a = _zarr_python_array(path, fmt, str, "", shape=(4,), chunks=(4,),
                           compressors=[zarr.codecs.ZstdCodec(level=5)] if fmt == 3
                           else [numcodecs.Zstd(level=5)])
    a[:] = values
    assert zarrgpu.open(str(path))[:].tolist() == values.tolist()
    # What zarrgpu writes is numcodecs' VLenUTF8 layout byte for byte.
    out = tmp_path / "ours.zarr"
    ours = zarrgpu.create_array(str(out), shape=(4,), chunks=(4,), dtype=str, zarr_format=fmt,
                                compressor=None, codecs=[] if fmt == 3 else None)
    ours[:] = values
    chunk = (out / ("c/0" if fmt == 3 else "0")).read_bytes()
    assert chunk == numcodecs.VLenUTF8().encode(values)


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("case", sorted(CASES))
def test_writes_read_back_by_zarr_python(tmp_path, fmt, case):
    dtype, values, fill = CASES[case]
    path = tmp_path / f"w{case}.zarr"
    create_dtype = bytes if dtype is VLEN_BYTES else dtype
    a = zarrgpu.create_array(str(path), shape=(10,), chunks=(4,), dtype=create_dtype, zarr_format=fmt,
                             fill_value=fill)
    a[:6] = values
    a[1] = values[4]  # a partial write of a stored chunk: read, modified, written again
    expected = zarr.open_array(str(path), mode="r")
    want = values.copy()
    want[1] = values[4]
    got_zp = expected[:6]
    if want.dtype == object and got_zp.dtype.kind == "T":
        want = want.astype(got_zp.dtype)
    _assert_same(np.asarray(got_zp), want)
    _assert_same(zarrgpu.open(str(path))[:], expected[:])  # the missing chunk and the fill too
    wf = expected.fill_value
    if isinstance(wf, (np.datetime64, np.timedelta64)):
        assert wf.view(np.int64) == np.asarray(fill).astype(wf.dtype).view(np.int64)
    elif isinstance(wf, np.void):
        assert wf.tobytes() == fill
    else:
        assert wf == fill


@pytest.mark.parametrize("fmt", [2, 3])
def test_string_array_rejects_device_reads_and_byte_buffers(tmp_path, fmt):
    path = tmp_path / "s.zarr"
    _zarr_python_array(path, fmt, str, "", shape=(3,), chunks=(2,))[:] = np.array(["a", "b", "c"], dtype=object)
    a = zarrgpu.open(str(path))
    with pytest.raises(UnsupportedError, match="cannot be read to a device"):
        a.read(device="cuda")
    with pytest.raises(InvalidArgumentError, match="fixed-size"):
        a.read(out=np.empty(3, dtype=object))
    u = tmp_path / "u.zarr"
    _zarr_python_array(u, fmt, "<U2", "", shape=(3,), chunks=(2,))
    with pytest.raises(UnsupportedError, match="cannot be read to a device"):
        zarrgpu.open(str(u)).read(device="cuda:0")


@pytest.mark.parametrize("fmt", [2, 3])
def test_device_read_error_names_the_array(tmp_path, fmt):
    path = tmp_path / "g.zarr"
    g = zarr.open_group(str(path), mode="w", zarr_format=fmt)
    g.create_array("stations", shape=(2,), chunks=(2,), dtype=str)[:] = np.array(["a", "b"], dtype=object)
    g.create_array("when", shape=(2,), chunks=(2,), dtype="<M8[s]")
    for name in ("stations", "when"):
        with pytest.raises(UnsupportedError, match=rf"array /?{name} .*cannot be read to a device"):
            zarrgpu.open(str(path))[name].read(device="cuda")


def test_object_array_without_a_vlen_codec_is_a_clear_error(tmp_path):
    path = tmp_path / "o.zarr"
    path.mkdir()
    (path / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "|O", "fill_value": None, "order": "C",
        "compressor": None, "filters": [{"id": "pickle"}]}))
    with pytest.raises(UnsupportedError, match="vlen-utf8 or vlen-bytes"):
        zarrgpu.open(str(path))


@pytest.mark.parametrize("fmt", [2, 3])
def test_corrupt_vlen_chunk_names_array_chunk_and_codec(tmp_path, fmt):
    path = tmp_path / "s.zarr"
    a = _zarr_python_array(path, fmt, str, "", shape=(4,), chunks=(4,), compressors=None)
    a[:] = np.array(["a", "b", "c", "d"], dtype=object)
    key = path / ("c/0" if fmt == 3 else "0")
    key.write_bytes(key.read_bytes()[:-1])
    with pytest.raises(zarrgpu.errors.CorruptDataError) as e:
        zarrgpu.open(str(path))[:]
    assert e.value.codec == "vlen-utf8" and e.value.chunk_key.endswith("0")


# ---- xarray -----------------------------------------------------------------------------


def _open_both(path, **kwargs):
    want = xr.open_dataset(path, engine="zarr", **kwargs)
    got = xr.open_dataset(path, engine="zarrgpu", **kwargs)
    return got, want


@pytest.mark.parametrize("fmt", [2, 3])
def test_xarray_string_coordinate_becomes_the_same_index(tmp_path, fmt):
    path = str(tmp_path / "s.zarr")
    xr.Dataset(coords={"s": ["a", "bb"]}).to_zarr(path, zarr_format=fmt, consolidated=False)
    got, want = _open_both(path)
    xr.testing.assert_identical(got, want)
    assert got.indexes["s"].equals(want.indexes["s"])
    assert type(got.indexes["s"]) is type(want.indexes["s"])
    assert got.indexes["s"].dtype == want.indexes["s"].dtype


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("decode", [True, False])
def test_xarray_strings_bytes_and_times_equal_engine_zarr(tmp_path, fmt, decode):
    path = str(tmp_path / "d.zarr")
    n = 5
    ds = xr.Dataset(
        {
            "v": (("s",), np.arange(n, dtype="f4")),
            "names": (("s",), np.array(["x", "", "ü", "日本", "last"], dtype=object)),
            "raw": (("s",), np.array([b"a", b"", b"\xff", b"cd", b"e"])),
            "when": (("s",), np.array(["2020-01-01", "NaT", "1999-12-31T12:00", "2000-01-01", "1970-01-01"],
                                      dtype="M8[ns]")),
            "lag": (("s",), np.array([1, -2, "NaT", 0, 86400], dtype="m8[s]")),
        },
        coords={"s": ["a", "bb", "ccc", "d", "é"], "t": ("s", pd_dates(n))},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds.to_zarr(path, zarr_format=fmt, consolidated=True)
    kwargs = {} if decode else {"decode_times": False, "decode_timedelta": False, "mask_and_scale": False}
    got, want = _open_both(path, **kwargs)
    xr.testing.assert_identical(got, want)
    for name in want.variables:
        assert got[name].dtype == want[name].dtype, name
    xr.testing.assert_identical(got.isel(s=slice(1, 4)).load(), want.isel(s=slice(1, 4)).load())


def pd_dates(n):
    pd = pytest.importorskip("pandas")
    return pd.date_range("2021-03-01", periods=n, freq="6h").values


@pytest.mark.parametrize("fmt", [2, 3])
def test_xarray_raw_datetime64_arrays_written_by_zarr_python(tmp_path, fmt):
    # Arrays of the NumPy time types (no CF units): xarray takes the datetime64 values as they are.
    path = tmp_path / "t.zarr"
    g = zarr.open_group(str(path), mode="w", zarr_format=fmt)
    t = g.create_array("t", shape=(4,), chunks=(3,), dtype="M8[ms]", fill_value=None,
                       dimension_names=["x"] if fmt == 3 else None)
    d = g.create_array("d", shape=(4,), chunks=(3,), dtype="m8[h]", fill_value=np.timedelta64(1, "h"),
                       dimension_names=["x"] if fmt == 3 else None)
    if fmt == 2:
        t.attrs["_ARRAY_DIMENSIONS"] = ["x"]
        d.attrs["_ARRAY_DIMENSIONS"] = ["x"]
    t[:3] = np.array(["2020-01-01T00:00:00.001", "NaT", "1900-01-01"], dtype="M8[ms]")
    d[:2] = np.array([5, "NaT"], dtype="m8[h]")
    for kwargs in ({}, {"mask_and_scale": False}, {"decode_times": False}):
        got, want = _open_both(str(path), **kwargs)
        xr.testing.assert_identical(got, want)
        assert got["t"].dtype == want["t"].dtype and got["d"].dtype == want["d"].dtype


def test_xarray_device_open_keeps_strings_on_the_host(tmp_path):
    # device="cuda" asks for CuPy data variables; strings and times stay NumPy (no GPU read is tried).
    path = str(tmp_path / "s.zarr")
    xr.Dataset({"names": (("s",), np.array(["a", "b"], dtype=object))}, coords={"s": ["x", "y"]}).to_zarr(
        path, zarr_format=3, consolidated=False)
    ds = xr.open_dataset(path, engine="zarrgpu", device="cuda")
    names = ds["names"].values
    assert isinstance(names, np.ndarray) and names.tolist() == ["a", "b"]
    assert ds.indexes["s"].tolist() == ["x", "y"]


# ---- groups and the command -------------------------------------------------------------


@pytest.mark.parametrize("fmt", [2, 3])
def test_group_with_string_arrays_opens_everywhere(tmp_path, fmt, run_zarrgpu):
    path = tmp_path / "g.zarr"
    xr.Dataset({"v": (("s",), [1.0, 2.0])}, coords={"s": ["a", "bb"]}).to_zarr(
        str(path), zarr_format=fmt, consolidated=True)
    g = zarrgpu.open(str(path))
    assert g["s"][:].tolist() == ["a", "bb"]
    assert g["v"][:].tolist() == [1.0, 2.0]
    info = run_zarrgpu("info", path, "--json")
    assert info.returncode == 0, info.stderr
    nodes = {n["path"]: n for n in json.loads(info.stdout)["nodes"]}
    assert nodes["s"]["data_type"] in ("fixed_length_utf32[8 bytes]", "string")
    text = run_zarrgpu("info", path)
    assert text.returncode == 0 and "fixed_length_utf32" in text.stdout
