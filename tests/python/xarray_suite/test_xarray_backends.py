"""xarray's own zarr backend tests (xarray/tests/test_backends.py, from the installed xarray)
with every read going through engine="zarrgpu": xarray writes with to_zarr (formats 2 and
3, directory stores) and the class's `open` reads back with zarrgpu.

conftest.py beside this file counts the datasets zarrgpu opened in each test: a test that
passes without opening one through zarrgpu (it reads with engine="zarr", a zarr-python
store object or zarr-python itself) reports as skipped, "not applicable". Tests expected to
fail are in expected_failures.py, each with its reason."""

from __future__ import annotations

import contextlib

import pytest

xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")
xtb = pytest.importorskip("xarray.tests.test_backends")

# Fixtures the inherited tests ask for by name: pytest finds fixtures in the collecting
# module and its conftests, not in the module that defined the class.
from xarray.tests.conftest import time_unit, use_dask  # noqa: E402,F401
from xarray.tests.test_backends import default_zarr_format  # noqa: E402,F401

# What engine="zarr" takes that has no meaning for a read-only backend reading directories.
_ZARR_ONLY_OPTIONS = ("mode", "zarr_format", "zarr_version", "cache_members", "storage_options")


class TestZarrgpuDirectoryStore(xtb.TestZarrDirectoryStore):
    """TestZarrDirectoryStore (both zarr formats) with reads through zarrgpu."""

    @contextlib.contextmanager
    def open(self, path, **kwargs):
        for key in _ZARR_ONLY_OPTIONS:
            kwargs.pop(key, None)
        backend_kwargs = dict(kwargs.pop("backend_kwargs", None) or {})
        for key in _ZARR_ONLY_OPTIONS:
            backend_kwargs.pop(key, None)
        with xr.open_dataset(path, engine="zarrgpu", backend_kwargs=backend_kwargs or None, **kwargs) as ds:
            yield ds
