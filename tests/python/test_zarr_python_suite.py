"""zarr-python's own tests (the installed version's: codecs, sharding, indexing, format 2,
arrays) with zarrgpu.zarr.CodecPipeline as zarr-python's pipeline, as zarrs-python runs them:
every test that reads or writes chunks through zarrgpu passes, the listed ones fail as
listed (tests/python/zarr_suite/expected_failures.py). The suite runs in its own pytest
process (its conftest and settings are zarr-python's); scripts/setup.sh fetches it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("zarr")
pytest.importorskip("pytest_asyncio", reason="zarr-python's suite needs pytest-asyncio (requirements-dev.txt)")
pytest.importorskip("hypothesis", reason="zarr-python's suite needs hypothesis (requirements-dev.txt)")

SUITE = Path(__file__).resolve().parent / "zarr_suite"
sys.path.insert(0, str(SUITE))
from fetch_zarr_tests import cache_dir, installed_version  # noqa: E402


def test_zarr_python_suite_passes_with_the_pipeline_selected():
    tests = cache_dir(installed_version()) / "tests"
    if not (tests / "conftest.py").is_file():
        pytest.skip(f"zarr-python's tests are not in {tests}: run scripts/setup.sh "
                    "(or python tests/python/zarr_suite/fetch_zarr_tests.py) with network access")
    r = subprocess.run([sys.executable, str(SUITE / "run_zarr_suite.py")],
                       capture_output=True, text=True, timeout=1800)
    summary = [line for line in r.stdout.splitlines() if line.startswith(("FAILED", "ERROR", "XPASS"))]
    assert r.returncode == 0, "\n".join(summary) or r.stdout[-4000:] + r.stderr[-4000:]
    assert " passed" in r.stdout.splitlines()[-1], r.stdout[-2000:]
