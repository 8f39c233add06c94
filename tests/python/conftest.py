"""Shared pytest fixtures: the built `zarrgpu` command for the CLI and round-trip tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[2]


def _zarrgpu_bin() -> Path:
    return Path(os.environ.get("ZARRGPU_BIN", _REPO / "build" / "tools" / "zarrgpu" / "zarrgpu"))


@pytest.fixture(scope="session")
def zarrgpu_bin() -> Path:
    """The `zarrgpu` executable ($ZARRGPU_BIN, default build/tools/zarrgpu/zarrgpu); skips when absent."""
    path = _zarrgpu_bin()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"zarrgpu command not built: {path} does not exist (build it or set ZARRGPU_BIN)")
    return path


@pytest.fixture(scope="session")
def run_zarrgpu(zarrgpu_bin):
    """run_zarrgpu(*args) -> CompletedProcess (text, both streams captured, never raises on exit status)."""

    def run(*args, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run([str(zarrgpu_bin), *map(str, args)], capture_output=True, text=True, timeout=timeout)

    return run
