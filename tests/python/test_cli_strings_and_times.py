"""`zarrgpu info`, `cat` and `convert` on the string, bytes and time types (issue 31 items 3-4),
against zarr-python on arrays it writes (formats 2 and 3).

Exit codes (zarrgpu --help): 0 ok, 5 unsupported."""

from __future__ import annotations

import json

import numpy as np
import pytest
import zarr

# name: (dtype given to zarr-python, values)
ARRAYS = {
    "utf32": ("<U3", np.array(["ab", "", "東京", "cde"])),
    "bytes": ("|S3", np.array([b"ZRH", b"", b"a\x00b", b"x"])),
    "when": ("<M8[s]", np.array(["2020-01-01T00:00:01", "NaT", "1969-12-31", "2038-01-19"], dtype="<M8[s]")),
    "span": ("<m8[ms]", np.array([1, -2, "NaT", 4000], dtype="<m8[ms]")),
    "words": (str, np.array(["Zürich", "", "a much longer string", "x"], dtype=object)),
}


@pytest.fixture(params=[2, 3], ids=["v2", "v3"])
def store(request, tmp_path):
    path = tmp_path / f"g{request.param}.zarr"
    g = zarr.open_group(str(path), mode="w", zarr_format=request.param)
    for name, (dtype, values) in ARRAYS.items():
        g.create_array(name, shape=values.shape, chunks=(3,), dtype=dtype)[:] = values
    return path


def test_info_names_each_type(run_zarrgpu, store):
    r = run_zarrgpu("info", store, "--json")
    assert r.returncode == 0, r.stderr
    types = {n["path"]: n["data_type"] for n in json.loads(r.stdout)["nodes"] if n["path"]}
    assert types == {"utf32": "fixed_length_utf32[12 bytes]", "bytes": "null_terminated_bytes[3 bytes]",
                     "when": "numpy.datetime64[s]", "span": "numpy.timedelta64[ms]", "words": "string"}
    text = run_zarrgpu("info", store)
    assert text.returncode == 0, text.stderr
    assert "numpy.datetime64[s]" in text.stdout and "vlen-utf8" in text.stdout
    assert "variable-length elements" in text.stdout  # no uncompressed size for strings


@pytest.mark.parametrize("name", ["utf32", "bytes", "when", "span"])
def test_cat_fixed_size_types_equal_zarr_python(run_zarrgpu, store, tmp_path, name):
    out = tmp_path / f"{name}.npy"
    r = run_zarrgpu("cat", store, "--array", name, "--select", "1:", "--out", out)
    assert r.returncode == 0, r.stderr
    got = np.load(out, allow_pickle=False)
    want = zarr.open_array(str(store / name), mode="r")[1:]
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind in "Mm":
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))  # NaT's bits too
    else:
        np.testing.assert_array_equal(got, want)


def test_cat_variable_length_strings_is_a_clear_error(run_zarrgpu, store, tmp_path):
    out = tmp_path / "words.npy"
    r = run_zarrgpu("cat", store, "--array", "words", "--out", out)
    assert r.returncode == 5, r.stderr
    assert "variable-length data type string" in r.stderr and "'words'" in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("dst_format", [2, 3])
def test_convert_copies_every_type(run_zarrgpu, store, tmp_path, dst_format):
    dst = tmp_path / "dst.zarr"
    r = run_zarrgpu("convert", store, dst, "--format", dst_format, "--codec", "zstd:3", "--quiet")
    assert r.returncode == 0, r.stderr
    got = zarr.open_group(str(dst), mode="r")
    for name, (_, values) in ARRAYS.items():
        a = got[name]
        assert a.metadata.zarr_format == dst_format
        if values.dtype.kind in "Mm":
            np.testing.assert_array_equal(a[:].view(np.int64), values.view(np.int64), err_msg=name)
        else:
            np.testing.assert_array_equal(a[:], values, err_msg=name)


def test_convert_refuses_to_shard_strings(run_zarrgpu, store, tmp_path):
    r = run_zarrgpu("convert", store, tmp_path / "dst.zarr", "--format", 3, "--chunks", "2", "--shard", "4", "--quiet")
    assert r.returncode == 5, r.stderr
    assert "cannot be sharded" in r.stderr and "words" in r.stderr
