"""Importing zarrgpu first must not break libraries loaded after it.

A CUDA build of the extension that carried its own copy of libstdc++ exported
std::locale's symbols; pyarrow's static initialisers, loaded later by pandas
through xarray, then freed a locale with our copy's destructor and the process
aborted ("free(): invalid pointer"). Each case runs in a child process, so that
an abort is a failed test rather than a dead test run."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("later", ["xarray", "pandas", "pyarrow", "torch"])
def test_libraries_imported_after_zarrgpu_load(later):
    pytest.importorskip(later)
    code = f"import zarrgpu, {later}\nprint('ok')\n"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stderr[-2000:])
