"""Black-box tests of the `zarrgpu` command: every subcommand, exit codes, error messages.

Exit codes (zarrgpu --help): 0 ok, 1 usage, 2 invalid argument, 3 not found,
4 invalid metadata, 5 unsupported, 6 corrupt data, 7 I/O, 8 device, 9 internal.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import zarr

from _zarrgpu_corpus import corpus_dir, expected_arrays

CORPUS = corpus_dir()
needs_corpus = pytest.mark.skipif(CORPUS is None, reason="conformance corpus not found (set ZARRGPU_CORPUS_DIR)")


def sha256_le(a: np.ndarray) -> str:
    a = np.ascontiguousarray(a)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return hashlib.sha256(a.tobytes()).hexdigest()


def key_sizes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


# ---- the command itself -------------------------------------------------------------------

def test_version_and_help(run_zarrgpu):
    v = run_zarrgpu("--version")
    assert v.returncode == 0 and v.stdout.startswith("zarrgpu ")
    assert "CUDA path" in v.stdout
    h = run_zarrgpu("--help")
    assert h.returncode == 0
    for word in ("info", "cat", "convert", "generate", "exit codes"):
        assert word in h.stdout
    for code in range(0, 10):
        assert f"\n  {code}  " in h.stdout
    for cmd in ("info", "cat", "convert"):
        r = run_zarrgpu(cmd, "--help")
        assert r.returncode == 0 and f"usage: zarrgpu {cmd}" in r.stdout
    r = run_zarrgpu("generate", "--help")
    assert r.returncode == 0 and "usage: zarrgpu generate era5" in r.stdout
    assert "|V2" in run_zarrgpu("cat", "--help").stdout


@pytest.mark.parametrize("args", [[], ["frobnicate"], ["info"], ["info", "--nope", "x"], ["cat", "x.zarr"],
                                  ["convert", "a"], ["generate"], ["generate", "mars", "x"],
                                  ["convert", "a", "b", "--codec", "lzma"], ["info", "a", "b"]])
def test_usage_errors_exit_1(run_zarrgpu, args):
    r = run_zarrgpu(*args)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip()


# ---- info -------------------------------------------------------------------------------

@needs_corpus
def test_info_text_v3_consolidated(run_zarrgpu):
    r = run_zarrgpu("info", CORPUS / "v3_group_consolidated_s11.zarr")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "consolidated" in out
    assert "data  array (zarr v3)  float32 [6, 3, 19, 36]" in out
    assert "bytes(little) | zstd(3)" in out
    assert "time, channel, lat, lon" in out
    assert "ratio" in out


@needs_corpus
@pytest.mark.parametrize("store", ["v3_group_consolidated_s11.zarr", "v3_group_plain_s11.zarr",
                                   "v2_group_consolidated_s1.zarr"])
def test_info_json_sizes(run_zarrgpu, store):
    root = CORPUS / store
    r = run_zarrgpu("info", root, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert set(doc) == {"store", "path", "consolidated", "nodes"}
    nodes = {n["path"]: n for n in doc["nodes"]}
    assert nodes[""]["node_type"] == "group"
    g = zarr.open_group(str(root), mode="r")
    arrays = dict(g.arrays()) if hasattr(g, "arrays") else {}
    for name, arr in _walk_arrays(g):
        n = nodes[name]
        assert n["node_type"] == "array"
        assert tuple(n["shape"]) == arr.shape
        assert tuple(n["chunks"]) == arr.chunks or n["inner_chunks"] is not None
        assert n["uncompressed_bytes"] == arr.size * arr.dtype.itemsize
        assert n["stored_bytes"] == key_sizes(root / name)
        if n["stored_bytes"]:
            assert n["ratio"] == pytest.approx(n["uncompressed_bytes"] / n["stored_bytes"])
    del arrays


def _walk_arrays(group, prefix=""):
    for name, member in group.members():
        path = f"{prefix}{name}"
        if isinstance(member, zarr.Array):
            yield path, member
        else:
            yield from _walk_arrays(member, path + "/")


@needs_corpus
def test_info_v2_dimension_names_and_path_inside_store(run_zarrgpu):
    r = run_zarrgpu("info", CORPUS / "v2_group_consolidated_s1.zarr" / "air", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["path"] == "air"
    assert Path(doc["store"]).name == "v2_group_consolidated_s1.zarr"
    (air,) = doc["nodes"]
    assert air["dimension_names"] == ["time", "lat", "lon"]
    assert air["zarr_format"] == 2


@needs_corpus
def test_info_sharded_shows_inner_chunks(run_zarrgpu):
    r = run_zarrgpu("info", CORPUS / "v3_shard_nested_s11.zarr", "--json")
    assert r.returncode == 0, r.stderr
    (a,) = json.loads(r.stdout)["nodes"]
    assert a["chunks"] == [64, 64]
    assert a["inner_chunks"] == [32, 32]
    assert a["codecs"] == ("sharding_indexed[32,32](sharding_indexed[8,8](bytes(little) | zstd(3)) "
                           "index(bytes(little) | crc32c)) index(bytes(little) | crc32c)")


def test_info_missing_store_exit_3(run_zarrgpu, tmp_path):
    r = run_zarrgpu("info", tmp_path / "nothing.zarr")
    assert r.returncode == 3, r.stderr
    assert "nothing.zarr" in r.stderr


def test_info_bad_metadata_exit_4(run_zarrgpu, tmp_path):
    (tmp_path / "bad.zarr").mkdir()
    (tmp_path / "bad.zarr" / "zarr.json").write_text('{"zarr_format": 3, "node_type": "array", "shape": "x"}')
    r = run_zarrgpu("info", tmp_path / "bad.zarr")
    assert r.returncode == 4, r.stderr


# ---- cat --------------------------------------------------------------------------------

CORPUS_ARRAYS = expected_arrays()


@pytest.mark.parametrize("entry", [e for _, e in CORPUS_ARRAYS], ids=[i for i, _ in CORPUS_ARRAYS])
def test_cat_reproduces_corpus(run_zarrgpu, tmp_path, entry):
    out = tmp_path / "a.npy"
    r = run_zarrgpu("cat", entry["store"], "--array", entry["array"], "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    a = np.load(out)
    assert list(a.shape) == entry["shape"]
    if entry["dtype"] == "bfloat16":
        assert a.dtype == np.dtype("V2")
        a = a.view("<u2")
    else:
        assert a.dtype == np.dtype(entry["dtype"]).newbyteorder("<")
    assert sha256_le(a) == entry["sha256"]
    if entry["dtype"] != "bfloat16":
        ref = zarr.open_array(entry["store"], path=entry["array"], mode="r")[...]
        np.testing.assert_array_equal(a, ref)
        assert a.tobytes() == np.ascontiguousarray(ref).astype(a.dtype).tobytes()


@needs_corpus
@pytest.mark.parametrize("sel,np_sel", [
    ("1:5,::2", np.s_[1:5, ::2]),
    ("3", np.s_[3]),
    ("::-3,7", np.s_[::-3, 7]),
    ("-10:,-20:-2:5", np.s_[-10:, -20:-2:5]),
    (":", np.s_[:]),
])
def test_cat_selection_matches_zarr_python(run_zarrgpu, tmp_path, sel, np_sel):
    store = CORPUS / "v3_zstd1_f4_s11.zarr"
    out = tmp_path / "s.npy"
    r = run_zarrgpu("cat", store, "--select", sel, "--out", out)
    assert r.returncode == 0, r.stderr
    ref = zarr.open_array(str(store), mode="r")[...][np_sel]  # zarr-python has no negative steps
    got = np.load(out)
    assert got.shape == np.shape(ref)
    np.testing.assert_array_equal(got, ref)


@needs_corpus
def test_cat_array_path_inside_store(run_zarrgpu, tmp_path):
    out = tmp_path / "air.npy"
    store = CORPUS / "v2_group_consolidated_s1.zarr"
    r = run_zarrgpu("cat", store / "air", "--select", "0:2", "--out", out)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(out), zarr.open_array(str(store), path="air", mode="r")[0:2])


@needs_corpus
@pytest.mark.parametrize("sel", ["0:10,:,5,1", "1000", "::0", "a:b", "1,2,3,4", ":,-100"])
def test_cat_bad_selection_exit_2(run_zarrgpu, tmp_path, sel):
    out = tmp_path / "x.npy"
    r = run_zarrgpu("cat", CORPUS / "v3_zstd1_f4_s11.zarr", "--select", sel, "--out", out)
    assert r.returncode == 2, (sel, r.stderr)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@needs_corpus
def test_cat_group_needs_array_exit_2(run_zarrgpu, tmp_path):
    r = run_zarrgpu("cat", CORPUS / "v3_group_plain_s11.zarr", "--out", tmp_path / "x.npy")
    assert r.returncode == 2
    assert "group" in r.stderr and "data" in r.stderr


@needs_corpus
def test_cat_missing_array_exit_3(run_zarrgpu, tmp_path):
    r = run_zarrgpu("cat", CORPUS / "v3_group_plain_s11.zarr", "--array", "nope", "--out", tmp_path / "x.npy")
    assert r.returncode == 3, r.stderr
    assert "nope" in r.stderr


def _has_cuda_path(run_zarrgpu) -> bool:
    return "CUDA path: built in" in run_zarrgpu("--version").stdout


@needs_corpus
def test_cat_cuda_without_cuda_path_exit_5(run_zarrgpu, tmp_path):
    if _has_cuda_path(run_zarrgpu):
        pytest.skip("this build has the CUDA path")
    r = run_zarrgpu("cat", CORPUS / "v3_zstd1_f4_s11.zarr", "--out", tmp_path / "x.npy", "--device", "cuda:0")
    assert r.returncode == 5
    assert "this build has no CUDA path" in r.stderr
    assert run_zarrgpu("cat", CORPUS / "v3_zstd1_f4_s11.zarr", "--out", tmp_path / "x.npy",
                       "--device", "tpu").returncode == 1


def _truncate_first_chunk(root: Path, key: str) -> None:
    chunk = root / key
    data = chunk.read_bytes()
    chunk.write_bytes(data[: len(data) // 2])


@needs_corpus
@pytest.mark.parametrize("store,array,key,codec", [
    ("v3_group_plain_s11.zarr", "data", "data/c/0/0/0/0", "zstd"),
    ("v2_group_consolidated_s1.zarr", "air", "air/0.0.0", "zstd"),
    ("v3_gzip_f4_s11.zarr", "", "c/0/0", "gzip"),
])
def test_cat_corrupt_chunk_exit_6_names_array_chunk_codec(run_zarrgpu, tmp_path, store, array, key, codec):
    copy = tmp_path / store
    shutil.copytree(CORPUS / store, copy)
    _truncate_first_chunk(copy, key)
    out = tmp_path / "x.npy"
    r = run_zarrgpu("cat", copy, "--array", array, "--out", out)
    assert r.returncode == 6, r.stderr
    msg = r.stderr
    chunk_key = key[len(array) + 1:] if array else key
    assert chunk_key in msg, msg
    assert codec in msg, msg
    if array:
        assert f"'{array}" in msg or f"/{array}" in msg, msg
    assert not out.exists()


@needs_corpus
def test_cat_checksum_mismatch_exit_6(run_zarrgpu, tmp_path):
    copy = tmp_path / "crc.zarr"
    shutil.copytree(CORPUS / "v3_zstd_crc_s11.zarr", copy)
    chunk = next(p for p in sorted((copy / "c").rglob("*")) if p.is_file())
    data = bytearray(chunk.read_bytes())
    data[len(data) // 2] ^= 0xFF
    chunk.write_bytes(bytes(data))
    r = run_zarrgpu("cat", copy, "--out", tmp_path / "x.npy")
    assert r.returncode == 6, r.stderr
    assert "crc32c" in r.stderr or "zstd" in r.stderr


# ---- generate ---------------------------------------------------------------------------

def test_generate_default_opens_in_xarray(run_zarrgpu, tmp_path):
    import xarray as xr

    dst = tmp_path / "era5.zarr"
    r = run_zarrgpu("generate", "era5", dst, "--quiet")
    assert r.returncode == 0, r.stderr
    ds = xr.open_zarr(dst)
    assert dict(ds["data"].sizes) == {"time": 8, "channel": 4, "lat": 181, "lon": 360}
    assert ds["data"].dtype == np.float32
    assert float(ds["lat"][0]) == 90.0 and float(ds["lat"][-1]) == -90.0
    assert str(ds["time"].values[1]) .startswith("1979-01-01T06")
    t2m = ds["data"].isel(channel=0).values
    assert 180 < t2m.min() and t2m.max() < 330
    assert np.isfinite(ds["data"].values).all()
    assert ds["data"].encoding["chunks"] == (1, 4, 181, 360)
    info = json.loads(run_zarrgpu("info", dst, "--json").stdout)
    data = next(n for n in info["nodes"] if n["path"] == "data")
    assert data["codecs"] == "bytes(little) | zstd(3)"
    assert 1.3 < data["ratio"] < 2.5
    assert info["consolidated"] is True
    assert not list(tmp_path.glob("*.partial-*"))


def test_generate_is_deterministic(run_zarrgpu, tmp_path):
    args = ["--time", "3", "--channels", "2", "--lat", "19", "--lon", "36", "--quiet"]
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        assert run_zarrgpu("generate", "era5", tmp_path / name, "--seed", seed, *args).returncode == 0
    a, b, c = (zarr.open_array(str(tmp_path / n), path="data", mode="r")[...] for n in "abc")
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()
    chunk = Path("data/c/1/0/0/0")
    assert (tmp_path / "a" / chunk).read_bytes() == (tmp_path / "b" / chunk).read_bytes()


@pytest.mark.parametrize("variant,fmt", [("sharded", 3), ("raw", 3), ("zstd", 2), ("raw", 2)])
def test_generate_variants(run_zarrgpu, tmp_path, variant, fmt):
    dst = tmp_path / "v.zarr"
    r = run_zarrgpu("generate", "era5", dst, "--variant", variant, "--format", fmt, "--time", "6",
                    "--lat", "19", "--lon", "36", "--quiet")
    assert r.returncode == 0, r.stderr
    info = json.loads(run_zarrgpu("info", dst, "--json").stdout)
    data = next(n for n in info["nodes"] if n["path"] == "data")
    assert data["zarr_format"] == fmt
    assert data["dimension_names"] == ["time", "channel", "lat", "lon"]
    if variant == "sharded":
        assert data["chunks"] == [4, 4, 19, 36] and data["inner_chunks"] == [1, 4, 19, 36]
    else:
        assert data["chunks"] == [1, 4, 19, 36]
    ref = zarr.open_array(str(dst), path="data", mode="r")[...]
    assert ref.shape == (6, 4, 19, 36) and np.isfinite(ref).all()


def test_generate_refuses_existing_dst(run_zarrgpu, tmp_path):
    dst = tmp_path / "e.zarr"
    dst.mkdir()
    r = run_zarrgpu("generate", "era5", dst, "--time", "1", "--lat", "3", "--lon", "4")
    assert r.returncode == 2 and "--overwrite" in r.stderr
    r = run_zarrgpu("generate", "era5", dst, "--time", "1", "--lat", "3", "--lon", "4", "--overwrite", "--quiet")
    assert r.returncode == 0, r.stderr
    assert (dst / "zarr.json").exists()
    assert run_zarrgpu("generate", "era5", tmp_path / "s.zarr", "--variant", "sharded", "--format", "2").returncode == 1


# ---- convert ----------------------------------------------------------------------------

@needs_corpus
def test_convert_v2_group_to_v3_rechunked(run_zarrgpu, tmp_path):
    src = CORPUS / "v2_group_consolidated_s1.zarr"
    dst = tmp_path / "out.zarr"
    r = run_zarrgpu("convert", src, dst, "--format", "3", "--chunks", "time=1", "--codec", "zstd:3", "--quiet")
    assert r.returncode == 0, r.stderr
    g_src = zarr.open_group(str(src), mode="r")
    g_dst = zarr.open_group(str(dst), mode="r")
    assert g_dst.metadata.zarr_format == 3
    assert dict(g_dst.attrs) == dict(g_src.attrs)
    for name, a in _walk_arrays(g_src):
        b = g_dst[name]
        np.testing.assert_array_equal(b[...], a[...])
        # Format 2's fill_value is xarray's missing-value marker; in format 3 that meaning
        # lives in a _FillValue attribute, which convert adds (test_convert_xarray.py
        # checks that xarray reads the same values through it).
        b_attrs = dict(b.attrs)
        has_marker = b_attrs.pop("_FillValue", None) is not None
        assert dict((k, v) for k, v in a.attrs.items() if k != "_ARRAY_DIMENSIONS") == b_attrs
        assert has_marker == (a.metadata.fill_value is not None), name
    air = g_dst["air"]
    assert air.chunks == (1, 20, 30)
    assert air.metadata.dimension_names == ("time", "lat", "lon")


@needs_corpus
def test_convert_refuses_existing_and_cleans_up_on_failure(run_zarrgpu, tmp_path):
    src = tmp_path / "src.zarr"
    shutil.copytree(CORPUS / "v3_group_plain_s11.zarr", src)
    dst = tmp_path / "dst.zarr"
    dst.mkdir()
    r = run_zarrgpu("convert", src, dst)
    assert r.returncode == 2 and "--overwrite" in r.stderr
    dst.rmdir()
    _truncate_first_chunk(src, "data/c/0/0/0/0")
    r = run_zarrgpu("convert", src, dst, "--quiet")
    assert r.returncode == 6, r.stderr
    assert "c/0/0/0/0" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src.zarr"]


@needs_corpus
@pytest.mark.parametrize("args", [["--chunks", "nope=3"], ["--chunks", "1,2,3,4,5"], ["--shard", "8", "--format", "2"],
                                  ["--codec", "zstd:99"], ["--memory", "lots"], ["--format", "4"]])
def test_convert_bad_options_exit_1(run_zarrgpu, tmp_path, args):
    r = run_zarrgpu("convert", CORPUS / "v2_group_consolidated_s1.zarr", tmp_path / "o.zarr", *args)
    assert r.returncode == 1, (args, r.stderr)
    assert not list(tmp_path.iterdir())


@needs_corpus
def test_convert_one_array_sharded_small_memory(run_zarrgpu, tmp_path):
    src = CORPUS / "v3_group_plain_s11.zarr"
    dst = tmp_path / "one.zarr"
    r = run_zarrgpu("convert", src, dst, "--array", "data", "--chunks", "1,1,19,36", "--shard", "2,3,19,36",
                    "--codec", "blosc:zstd:5:bitshuffle", "--memory", "20KiB", "--threads", "3", "--quiet")
    assert r.returncode == 0, r.stderr
    a = zarr.open_array(str(dst), mode="r")
    np.testing.assert_array_equal(a[...], zarr.open_array(str(src), path="data", mode="r")[...])
    assert a.shards == (2, 3, 19, 36) and a.chunks == (1, 1, 19, 36)


def test_convert_missing_source_exit_3(run_zarrgpu, tmp_path):
    r = run_zarrgpu("convert", tmp_path / "none.zarr", tmp_path / "o.zarr")
    assert r.returncode == 3, r.stderr
    assert not (tmp_path / "o.zarr").exists()


@needs_corpus
def test_convert_nested_group_consolidated_opens_in_zarr_python(run_zarrgpu, tmp_path):
    src = CORPUS / "v2_group_consolidated_s1.zarr"
    for fmt in ("2", "3"):
        dst = tmp_path / f"n{fmt}.zarr"
        r = run_zarrgpu("convert", src, dst, "--format", fmt, "--quiet")
        assert r.returncode == 0, r.stderr
        g = zarr.open_consolidated(str(dst), zarr_format=int(fmt))
        np.testing.assert_array_equal(g["sub/mask"][...], zarr.open_array(str(src), path="sub/mask", mode="r")[...])
        np.testing.assert_array_equal(g["air"][...], zarr.open_array(str(src), path="air", mode="r")[...])
        info = json.loads(run_zarrgpu("info", dst, "--json").stdout)
        assert info["consolidated"] is True
        assert [n["path"] for n in info["nodes"]] == ["", "air", "sub", "sub/mask"]


def test_cat_unwritable_output_exit_7(run_zarrgpu, tmp_path):
    if CORPUS is None:
        pytest.skip("conformance corpus not found")
    r = run_zarrgpu("cat", CORPUS / "v3_zstd1_f4_s11.zarr", "--out", tmp_path / "no" / "x.npy")
    assert r.returncode == 7, r.stderr
    assert str(tmp_path / "no" / "x.npy") in r.stderr
