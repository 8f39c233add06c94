"""Runs zarr-python's own tests (of the installed version, fetched by fetch_zarr_tests.py)
with zarrgpu.zarr.CodecPipeline selected: the modules that read and write chunks (codecs,
sharding, indexing, format 2, arrays), a few minutes on 2 cores.

    python tests/python/zarr_suite/run_zarr_suite.py [pytest options, e.g. -x -k sharding]

Exit status: pytest's (0 when every applicable test passes and every listed failure fails)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fetch_zarr_tests import fetch, installed_version  # noqa: E402

MODULES = [
    "test_codecs",
    "test_indexing.py",
    "test_v2.py",
    "test_array.py",
]


def main(argv: list[str]) -> int:
    tests = fetch(installed_version())
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "pytest", "-c", str(HERE / "pytest.ini"), "--rootdir", str(tests.parent),
           "-p", "zarrgpu_suite_plugin", "-q", "-p", "no:cacheprovider",
           *[str(tests / m) for m in MODULES], *argv]
    return subprocess.call(cmd, env=env, cwd=tests.parent)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
