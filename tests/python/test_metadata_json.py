"""Metadata documents as zarr-python writes them (issue 31) and as an attacker might
(issue 33): NaN/Infinity tokens, nesting depth, size and encoding."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from collections.abc import Mapping

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")
zarr = pytest.importorskip("zarr")
xr = pytest.importorskip("xarray")

NON_FINITE = {"nan": math.nan, "inf": math.inf, "ninf": -math.inf, "mixed": [math.nan, 1.5, "NaN", -math.inf],
              "text": "Infinity", "nested": {"a": [{"b": math.nan}]}}
TOKEN = re.compile(r"(?<![\"\w])(NaN|-?Infinity)(?![\"\w])")  # a bare token, not a string


def same(a, b) -> bool:
    """Equality where NaN equals NaN (and types must agree)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, Mapping) and isinstance(b, Mapping):  # attrs: a mapping that writes through
        return set(a) == set(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def metadata_texts(root) -> str:
    names = {"zarr.json", ".zattrs", ".zarray", ".zgroup", ".zmetadata"}
    return "\n".join(p.read_text() for p in sorted(root.rglob("*")) if p.name in names)


# ---- NaN, Infinity, -Infinity -------------------------------------------------------------

@pytest.mark.parametrize("consolidated", [False, True])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_non_finite_attributes_read_as_zarr_python_and_xarray(tmp_path, zarr_format, consolidated):
    path = tmp_path / "g.zarr"
    ds = xr.Dataset({"t": ("x", np.arange(3.0), {"valid_max": math.inf, "bad": math.nan})}, attrs=NON_FINITE)
    ds.to_zarr(path, zarr_format=zarr_format, consolidated=consolidated)
    assert {"NaN", "Infinity", "-Infinity"} <= set(TOKEN.findall(metadata_texts(path)))

    g = zarrgpu.open(path)
    assert g.is_consolidated == consolidated
    ref = zarr.open_group(path, mode="r", use_consolidated=consolidated)
    assert same(g.attrs, dict(ref.attrs))
    assert same(g["t"].attrs, dict(ref["t"].attrs))
    assert math.isnan(g.attrs["nan"]) and g.attrs["ninf"] == -math.inf and g.attrs["text"] == "Infinity"

    ours = xr.open_dataset(path, engine="zarrgpu")
    theirs = xr.open_dataset(path, engine="zarr", consolidated=consolidated)
    xr.testing.assert_identical(ours, theirs)
    assert same(ours.attrs, theirs.attrs) and same(ours["t"].attrs, theirs["t"].attrs)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_non_finite_attributes_are_written_as_zarr_python_writes_them(tmp_path, zarr_format):
    attrs = {"nan": math.nan, "list": [math.inf, -math.inf, "NaN"]}
    ours = tmp_path / "ours.zarr"
    theirs = tmp_path / "theirs.zarr"
    zarrgpu.create_array(ours, shape=(2,), dtype="f4", zarr_format=zarr_format, attrs=attrs)
    z = zarr.create_array(theirs, shape=(2,), dtype="f4", zarr_format=zarr_format)
    z.attrs.update(attrs)
    doc = "zarr.json" if zarr_format == 3 else ".zattrs"
    assert sorted(TOKEN.findall((ours / doc).read_text())) == sorted(TOKEN.findall((theirs / doc).read_text()))
    written = json.loads((ours / doc).read_text())
    assert same(written.get("attributes", written), attrs)
    assert same(dict(zarr.open_array(ours, mode="r").attrs), attrs)
    assert same(zarrgpu.open(ours).attrs, attrs)
    # Attributes changed later write through the same way.
    zarrgpu.open(ours, mode="r+").attrs["later"] = -math.inf
    assert "-Infinity" in TOKEN.findall((ours / doc).read_text())
    assert same(dict(zarr.open_array(ours, mode="r").attrs), {**attrs, "later": -math.inf})
    g = zarrgpu.create_group(tmp_path / "g.zarr", zarr_format=zarr_format, attrs=attrs)
    assert same(g.attrs, attrs)
    assert same(dict(zarr.open_group(tmp_path / "g.zarr", mode="r").attrs), attrs)


def test_bare_nan_fill_value_in_zarray(tmp_path):
    # Older writers (and Python's json.dumps of a float fill value) put a bare NaN there.
    path = tmp_path / "a.zarr"
    zarr.create_array(path, shape=(3,), chunks=(2,), dtype="f8", zarr_format=2, fill_value=0.0)
    meta = json.loads((path / ".zarray").read_text())
    meta["fill_value"] = math.nan
    (path / ".zarray").write_text(json.dumps(meta))
    assert "NaN" in TOKEN.findall((path / ".zarray").read_text())
    a = zarrgpu.open(path)
    ref = zarr.open_array(path, mode="r")
    assert math.isnan(a.fill_value) and math.isnan(ref.fill_value)
    np.testing.assert_array_equal(a[...], ref[...])


def test_non_finite_codec_configuration_roundtrips(tmp_path):
    # A v3 extension configuration may hold them too; they survive open and create.
    path = tmp_path / "a.zarr"
    zarr.create_array(path, shape=(2,), dtype="f4", zarr_format=3)
    meta = json.loads((path / "zarr.json").read_text())
    meta["attributes"] = {"deep": {"x": [[math.nan]]}}
    (path / "zarr.json").write_text(json.dumps(meta, indent=2))
    assert same(zarrgpu.open(path).attrs, {"deep": {"x": [[math.nan]]}})


# ---- depth, size and encoding (issue 33) ---------------------------------------------------

def deep_value(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def write_group_with_deep_attrs(root, depth: int, where: str):
    """A group with array "a" (dimension "x") whose attribute "deep" nests `depth` lists,
    in the document `where` names: the array's "zarr.json" or ".zattrs", or the group's
    consolidated metadata, ".zmetadata" (format 2) or "inline" (format 3)."""
    zarr_format = 3 if where in ("zarr.json", "inline") else 2
    g = zarr.open_group(root, mode="w", zarr_format=zarr_format)
    if zarr_format == 3:
        g.create_array("a", shape=(2,), dtype="f4", dimension_names=["x"])
    else:
        g.create_array("a", shape=(2,), dtype="f4").attrs["_ARRAY_DIMENSIONS"] = ["x"]
    if where in ("inline", ".zmetadata"):
        zarr.consolidate_metadata(root)
    doc, member = {
        "zarr.json": (root / "a" / "zarr.json", lambda m: m["attributes"]),
        ".zattrs": (root / "a" / ".zattrs", lambda m: m),
        ".zmetadata": (root / ".zmetadata", lambda m: m["metadata"]["a/.zattrs"]),
        "inline": (root / "zarr.json", lambda m: m["consolidated_metadata"]["metadata"]["a"]["attributes"]),
    }[where]
    meta = json.loads(doc.read_text())
    member(meta)["deep"] = "__deep__"
    doc.write_text(json.dumps(meta).replace('"__deep__"', deep_value(depth)))


WHERE = ["zarr.json", ".zattrs", ".zmetadata", "inline"]


def run_python(code: str) -> subprocess.CompletedProcess:
    """In a child, so that a crash (SIGSEGV) is a failed test, not a dead test run."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})


@pytest.mark.parametrize("where", WHERE)
def test_hundred_thousand_deep_attributes_are_a_clear_error(tmp_path, where, run_zarrgpu):
    root = tmp_path / "deep.zarr"
    write_group_with_deep_attrs(root, 100_000, where)
    code = f"""
import sys, zarrgpu, xarray as xr
root = {str(root)!r}
for name, f in [("open", lambda: zarrgpu.open(root)["a"]),
                ("xarray", lambda: xr.open_dataset(root, engine="zarrgpu"))]:
    try:
        f()
        print(name, "no error")
    except zarrgpu.InvalidMetadataError as e:
        print(name, "InvalidMetadataError", e.document, "|", e)
"""
    r = run_python(code)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout
    for line in lines:
        assert "InvalidMetadataError" in line and "more than 512 deep" in line, line
        assert str(root) in line
    cli = run_zarrgpu("info", root)
    assert "more than 512 deep" in cli.stdout + cli.stderr, (cli.stdout, cli.stderr)
    if where in ("zarr.json", ".zattrs"):
        # The member is unreadable; the group and its listing are shown.
        assert cli.returncode == 0 and "unreadable" in cli.stdout, cli.stderr
    else:
        # The group's own document is too deep.
        assert cli.returncode == 4, cli.stderr


@pytest.mark.parametrize("where", WHERE)
def test_depth_within_the_limit_reads_like_zarr_python(tmp_path, where):
    root = tmp_path / "d.zarr"
    write_group_with_deep_attrs(root, 400, where)
    a = zarrgpu.open(root)["a"]
    ref = zarr.open_group(root, mode="r")["a"]
    expected = json.dumps(ref.attrs["deep"])  # json's C encoder: no Python recursion per level
    assert json.dumps(a.attrs["deep"]) == expected
    ds = xr.open_dataset(root, engine="zarrgpu")
    assert json.dumps(ds["a"].attrs["deep"]) == expected


@pytest.mark.parametrize("where", WHERE)
def test_thousand_deep_is_refused_cleanly(tmp_path, where):
    # Beyond the documented limit of 512 levels: InvalidMetadataError, never RecursionError.
    root = tmp_path / "d.zarr"
    write_group_with_deep_attrs(root, 1000, where)
    with pytest.raises(zarrgpu.InvalidMetadataError, match="more than 512 deep"):
        zarrgpu.open(root)["a"]
    with pytest.raises(zarrgpu.InvalidMetadataError, match="more than 512 deep"):
        xr.open_dataset(root, engine="zarrgpu")


def test_group_document_too_deep_names_it(tmp_path, run_zarrgpu):
    root = tmp_path / "g.zarr"
    root.mkdir()
    (root / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {"x": '
                                    + deep_value(100_000) + "}}")
    with pytest.raises(zarrgpu.InvalidMetadataError) as info:
        zarrgpu.open(root)
    e = info.value
    assert e.kind == "invalid_metadata" and e.document == "zarr.json" and e.chunk_key == ""
    assert str(root) in e.store and "document 'zarr.json'" in str(e)
    cli = run_zarrgpu("info", root)
    assert cli.returncode == 4 and "more than 512 deep" in cli.stderr, cli.stderr


def test_oversized_document_is_refused(tmp_path):
    root = tmp_path / "big.zarr"
    zarr.open_group(root, mode="w", zarr_format=2)
    with open(root / ".zattrs", "w") as f:
        f.write('{"x": "')
        f.write("a" * (64 << 20))
        f.write('"}')
    with pytest.raises(zarrgpu.InvalidMetadataError, match="more than the 67108864"):
        zarrgpu.open(root)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_documents_are_invalid_metadata(tmp_path, encoding, run_zarrgpu):
    path = tmp_path / "a.zarr"
    zarr.create_array(path, shape=(2,), dtype="f4", zarr_format=3)
    text = (path / "zarr.json").read_text()
    (path / "zarr.json").write_bytes(text.encode(encoding))
    with pytest.raises(zarrgpu.InvalidMetadataError) as info:
        zarrgpu.open(path)
    assert encoding[:6].upper() in str(info.value) and info.value.document == "zarr.json"
    cli = run_zarrgpu("info", path)
    assert cli.returncode == 4 and "UTF-" in cli.stderr


def test_latin1_attributes_are_invalid_metadata(tmp_path):
    path = tmp_path / "a.zarr"
    zarr.create_array(path, shape=(2,), dtype="f4", zarr_format=2)
    (path / ".zattrs").write_bytes('{"title": "Météo"}'.encode("latin-1"))
    with pytest.raises(zarrgpu.InvalidMetadataError) as info:
        zarrgpu.open(path)
    e = info.value
    assert "not UTF-8" in str(e) and e.document == ".zattrs" and e.chunk_key == ""


def test_utf8_bom_is_accepted_as_zarr_python_does(tmp_path):
    path = tmp_path / "a.zarr"
    zarr.create_array(path, shape=(2,), dtype="f4", zarr_format=3, attributes={"t": "é"})
    (path / "zarr.json").write_bytes(b"\xef\xbb\xbf" + (path / "zarr.json").read_bytes())
    assert zarrgpu.open(path).attrs == dict(zarr.open_array(path, mode="r").attrs) == {"t": "é"}
