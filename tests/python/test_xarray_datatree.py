"""xr.open_datatree / open_groups_as_dict with engine="zarrgpu" against engine="zarr" on
nested groups (formats 2 and 3, consolidated or not)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")
xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")


def _tree() -> "xr.DataTree":
    rng = np.random.default_rng(3)
    return xr.DataTree.from_dict({
        "/": xr.Dataset({"top": ("x", np.arange(4.0))}, coords={"x": [10, 20, 30, 40]}, attrs={"level": 0}),
        "/a": xr.Dataset({"t": (("x", "y"), rng.standard_normal((4, 3)).astype("float32"), {"units": "K"})},
                         coords={"y": [0.5, 1.5, 2.5]}, attrs={"level": 1}),
        "/a/b": xr.Dataset({"n": ("z", np.array([1, -2, 3], dtype="int16"))}, attrs={"level": 2}),
        "/a/b/empty": xr.Dataset(attrs={"note": "no variables"}),
        "/c": xr.Dataset({"mask": ("x", np.array([True, False, True, True])),
                          "time": ("w", np.array([0, 1, 2], dtype="int64"),
                                   {"units": "days since 2000-01-01", "calendar": "standard"})}),
    })


@pytest.fixture(params=[(2, True), (2, False), (3, True), (3, False)],
                ids=["v2-consolidated", "v2-plain", "v3-consolidated", "v3-plain"])
def tree_store(tmp_path, request):
    zarr_format, consolidated = request.param
    path = str(tmp_path / f"tree_v{zarr_format}_{consolidated}.zarr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr-python: consolidated metadata is not in the v3 spec
        _tree().to_zarr(path, zarr_format=zarr_format, consolidated=consolidated)
    return path, consolidated


def _zarr(fn, path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(path, engine="zarr", **kw)


def test_backend_says_it_supports_groups():
    assert xr.backends.list_engines()["zarrgpu"].supports_groups


def test_open_datatree_identical_to_zarr_engine(tree_store):
    path, consolidated = tree_store
    mine = xr.open_datatree(path, engine="zarrgpu")
    assert not mine["a"]["t"].variable._in_memory  # lazy until compared or loaded
    assert zarrgpu.open(path).is_consolidated == consolidated
    theirs = _zarr(xr.open_datatree, path)
    xr.testing.assert_identical(mine, theirs)
    assert sorted(node.path for node in mine.subtree) == ["/", "/a", "/a/b", "/a/b/empty", "/c"]
    xr.testing.assert_identical(mine.load(), theirs.load())


@pytest.mark.parametrize("options", [{"decode_times": False}, {"mask_and_scale": False}, {"drop_variables": ["t"]}],
                         ids=["no_times", "no_mask", "drop"])
def test_open_datatree_options_as_zarr_engine(tree_store, options):
    path, _ = tree_store
    xr.testing.assert_identical(xr.open_datatree(path, engine="zarrgpu", **options),
                                _zarr(xr.open_datatree, path, **options))


@pytest.mark.parametrize("group", ["a", "/a", "a/b"])
def test_open_datatree_of_a_subgroup(tree_store, group):
    path, _ = tree_store
    mine = xr.open_datatree(path, engine="zarrgpu", group=group)
    xr.testing.assert_identical(mine, _zarr(xr.open_datatree, path, group=group))
    assert mine.path == "/"


def test_open_groups_as_dict_identical_to_zarr_engine(tree_store):
    path, _ = tree_store
    mine = xr.open_groups(path, engine="zarrgpu")
    theirs = _zarr(xr.open_groups, path)
    assert list(mine) == ["/", "/a", "/a/b", "/a/b/empty", "/c"]
    assert sorted(mine) == sorted(theirs)
    for name in theirs:
        xr.testing.assert_identical(mine[name], theirs[name])
    # Below group=, engine="zarr" names the groups relative to it ("." for itself).
    sub = xr.open_groups(path, engine="zarrgpu", group="a")
    theirs = _zarr(xr.open_groups, path, group="a")
    assert list(sub) == [".", "b", "b/empty"]
    assert sorted(sub) == sorted(theirs)
    for name in theirs:
        xr.testing.assert_identical(sub[name], theirs[name])


def test_open_datatree_with_chunks_is_dask_backed(tree_store):
    path, _ = tree_store
    mine = xr.open_datatree(path, engine="zarrgpu", chunks={})
    assert mine["a"]["t"].chunks is not None
    xr.testing.assert_identical(mine.compute(), _zarr(xr.open_datatree, path).load())


def test_open_datatree_of_an_array_is_a_clear_error(tmp_path):
    url = str(tmp_path / "one.zarr")
    zarrgpu.create_array(url, shape=(2,), dtype="int8")
    with pytest.raises(zarrgpu.InvalidArgumentError, match="single Zarr array, not a group"):
        xr.open_datatree(url, engine="zarrgpu")


def test_open_datatree_of_a_missing_group_is_not_found(tree_store):
    path, _ = tree_store
    with pytest.raises(zarrgpu.NotFoundError):
        xr.open_datatree(path, engine="zarrgpu", group="nope")
