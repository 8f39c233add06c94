"""Fetches the test suite of the installed zarr-python (its wheel ships none) into
.cache/zarr-python-tests/<version>/ at the repository root: the sdist of exactly that
version from PyPI's simple index (PEP 691 JSON), checked against the index's sha256.
scripts/setup.sh runs it; tests/python/zarr_suite skips when the cache is absent.

    python tests/python/zarr_suite/fetch_zarr_tests.py      # prints the tests/ directory
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import tarfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
INDEX = os.environ.get("ZARRGPU_PYPI_SIMPLE", "https://pypi.org/simple")


def cache_dir(version: str) -> Path:
    base = Path(os.environ.get("ZARRGPU_ZARR_TESTS_CACHE", ROOT / ".cache" / "zarr-python-tests"))
    return base / version


def installed_version() -> str:
    import zarr

    return zarr.__version__


def fetch(version: str) -> Path:
    target = cache_dir(version)
    if (target / "tests" / "conftest.py").is_file():
        return target / "tests"
    name = f"zarr-{version}.tar.gz"
    request = urllib.request.Request(f"{INDEX}/zarr/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        files = json.load(r)["files"]
    entry = next((f for f in files if f["filename"] == name), None)
    if entry is None:
        raise SystemExit(f"fetch_zarr_tests: {name} is not on {INDEX}/zarr/")
    with urllib.request.urlopen(entry["url"], timeout=120) as r:
        data = r.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry["hashes"]["sha256"]:
        raise SystemExit(f"fetch_zarr_tests: {name} has sha256 {digest}, the index says {entry['hashes']['sha256']}")
    prefix = f"zarr-{version}/tests/"
    partial = target.with_name(target.name + ".partial")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and (m.isfile() or m.isdir())]
        for m in members:
            m.name = m.name[len(f"zarr-{version}/"):]
        tar.extractall(partial, members=members, filter="data")
    partial.rename(target)
    return target / "tests"


if __name__ == "__main__":
    print(fetch(sys.argv[1] if len(sys.argv) > 1 else installed_version()))
