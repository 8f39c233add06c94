"""An unreadable member never takes its group down (issue 31): the group opens and lists
it with the reason, only touching it raises its precise error, xarray's drop_variables
skips it and `zarrgpu info` shows it as unreadable beside the rest."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")
zarr = pytest.importorskip("zarr")
xr = pytest.importorskip("xarray")


def dataset() -> xr.Dataset:
    return xr.Dataset(
        {"t": (("x", "y"), np.arange(12.0).reshape(3, 4), {"units": "K"}),
         "rec": ("x", np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8")]))},
        coords={"x": [10, 20, 30]},
        attrs={"title": "one member is structured"},
    )


def write(path, zarr_format: int, consolidated: bool):
    """A dataset whose variable "rec" has a structured data type: zarr-python reads it,
    zarrgpu does not (so it is unsupported, the member unreadable)."""
    dataset().to_zarr(path, zarr_format=zarr_format, consolidated=consolidated)


def break_member(path, name: str, zarr_format: int, how: str):
    """Edits member `name`'s metadata as `how` says."""
    doc = path / name / ("zarr.json" if zarr_format == 3 else ".zarray")
    meta = json.loads(doc.read_text())
    if how == "dtype":
        if zarr_format == 3:
            meta["data_type"] = {"name": "float8_e9m9", "configuration": {"x": 1}}
        else:
            meta["dtype"] = "<q9"
    elif how == "codec":
        if zarr_format == 3:
            meta["codecs"].append({"name": "no_such_codec"})
        else:
            meta["compressor"] = {"id": "no_such_codec"}
    elif how == "json":
        doc.write_text('{"zarr_format": ')
        return
    doc.write_text(json.dumps(meta))


CASES = [(f, c) for f in (2, 3) for c in (False, True)]


@pytest.mark.parametrize("zarr_format,consolidated", CASES)
def test_structured_member_does_not_take_the_group_down(tmp_path, zarr_format, consolidated):
    path = tmp_path / "d.zarr"
    write(path, zarr_format, consolidated)
    g = zarrgpu.open(path)
    assert g.is_consolidated == consolidated
    assert sorted(g) == ["rec", "t", "x"]
    assert g.member_kinds() == {"rec": "array", "t": "array", "x": "array"}
    reason = g.unreadable()
    assert list(reason) == ["rec"] and "structured" in reason["rec"]
    node = g.tree()["rec"]
    assert node["node_type"] == "array" and node["unreadable"]["kind"] == "unsupported"
    assert g.tree()["t"]["node_type"] == "array" and "unreadable" not in g.tree()["t"]
    np.testing.assert_array_equal(g["t"][...], np.arange(12.0).reshape(3, 4))
    # Touching it raises its own error.
    with pytest.raises(zarrgpu.UnsupportedError, match="structured") as info:
        g["rec"]
    assert info.value.array == "rec"

    # xarray: dropped, the rest opens as xarray's own engine gives it.
    ours = xr.open_dataset(path, engine="zarrgpu", drop_variables="rec")
    theirs = xr.open_dataset(path, engine="zarr", drop_variables="rec", consolidated=consolidated)
    xr.testing.assert_identical(ours, theirs)
    xr.testing.assert_identical(xr.open_dataset(path, engine="zarrgpu", drop_variables=["rec"]), theirs)
    # Not dropped: the precise error, not a failure of the whole group.
    with pytest.raises(zarrgpu.UnsupportedError, match="structured"):
        xr.open_dataset(path, engine="zarrgpu")


@pytest.mark.parametrize("how", ["dtype", "codec", "json"])
@pytest.mark.parametrize("zarr_format,consolidated", CASES)
def test_broken_member_is_listed_with_its_reason(tmp_path, zarr_format, consolidated, how, run_zarrgpu):
    if consolidated and how == "json":
        pytest.skip("consolidated metadata is one document: a broken member's JSON cannot be in it")
    path = tmp_path / "d.zarr"
    ds = dataset().drop_vars("rec")
    ds.to_zarr(path, zarr_format=zarr_format, consolidated=False)
    break_member(path, "t", zarr_format, how)
    if consolidated:
        # Consolidate what is there now, as zarr-python would have (it does not check codecs).
        if zarr_format == 2:
            entries = {".zgroup": json.loads((path / ".zgroup").read_text()),
                       ".zattrs": json.loads((path / ".zattrs").read_text())}
            for name in ("t", "x"):
                for doc in (".zarray", ".zattrs"):
                    entries[f"{name}/{doc}"] = json.loads((path / name / doc).read_text())
            (path / ".zmetadata").write_text(json.dumps({"metadata": entries, "zarr_consolidated_format": 1}))
        else:
            root = json.loads((path / "zarr.json").read_text())
            root["consolidated_metadata"] = {"kind": "inline", "must_understand": False, "metadata": {
                name: json.loads((path / name / "zarr.json").read_text()) for name in ("t", "x")}}
            (path / "zarr.json").write_text(json.dumps(root))
    expected = {"dtype": (zarrgpu.UnsupportedError, "unknown data type"),
                "codec": (zarrgpu.UnsupportedError, "no_such_codec"),
                "json": (zarrgpu.InvalidMetadataError, "not valid JSON")}[how]

    g = zarrgpu.open(path)
    assert g.is_consolidated == consolidated
    assert sorted(g) == ["t", "x"]
    assert expected[1] in g.unreadable()["t"]
    # A format 2 member is an array by its .zarray's name even when that does not parse.
    assert g.tree()["t"]["node_type"] == (None if how == "json" and zarr_format == 3 else "array")
    np.testing.assert_array_equal(g["x"][...], [10, 20, 30])
    with pytest.raises(expected[0], match=expected[1]) as info:
        g["t"]
    assert info.value.array == "t" and info.value.chunk_key == ""
    if how == "codec":
        assert info.value.codec == "no_such_codec"
    if how == "json":
        assert info.value.document == "t/" + ("zarr.json" if zarr_format == 3 else ".zarray")

    ours = xr.open_dataset(path, engine="zarrgpu", drop_variables="t")
    xr.testing.assert_identical(ours, ds.drop_vars("t"))
    with pytest.raises(expected[0], match=expected[1]):
        xr.open_dataset(path, engine="zarrgpu")

    text = run_zarrgpu("info", path)
    assert text.returncode == 0, text.stderr
    line = next(line for line in text.stdout.splitlines() if line.strip().startswith("t "))
    assert "unreadable" in line and expected[1] in line, text.stdout
    assert any(line.strip().startswith("x ") and "array" in line for line in text.stdout.splitlines())
    info_json = json.loads(run_zarrgpu("info", path, "--json").stdout)
    nodes = {n["path"]: n for n in info_json["nodes"]}
    assert expected[1] in nodes["t"]["unreadable"]["cause"]
    assert nodes["x"]["node_type"] == "array" and nodes["x"]["shape"] == [3]
    # A copy needs every member: convert stops with the member's own error.
    r = run_zarrgpu("convert", path, tmp_path / "out.zarr")
    assert r.returncode in (4, 5) and expected[1] in r.stderr, r.stderr


def test_string_coordinate_dropped_as_with_xarrays_engine(tmp_path):
    # The example in issue 31: one string coordinate anywhere made the group unreadable.
    path = tmp_path / "s.zarr"
    xr.Dataset({"v": ("x", np.arange(3.0))}, coords={"s": ["a", "bb"]}).to_zarr(path)
    ours = xr.open_dataset(path, engine="zarrgpu", drop_variables="s")
    theirs = xr.open_dataset(path, engine="zarr", drop_variables="s")
    xr.testing.assert_identical(ours, theirs)
    g = zarrgpu.open(path)
    assert sorted(g) == ["s", "v"]


def test_unreadable_member_attributes_do_not_hide_the_group(tmp_path):
    # A member whose .zattrs is not UTF-8: its group still opens.
    path = tmp_path / "g.zarr"
    dataset().drop_vars("rec").to_zarr(path, zarr_format=2, consolidated=False)
    (path / "t" / ".zattrs").write_bytes('{"units": "°C"}'.encode("latin-1"))
    g = zarrgpu.open(path)
    assert "not UTF-8" in g.unreadable()["t"]
    with pytest.raises(zarrgpu.InvalidMetadataError) as info:
        g["t"]
    assert info.value.document == "t/.zattrs"
