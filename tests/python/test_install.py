"""`pip install .` installs the `zarrgpu` command beside the package (issue 34, item 6):
the wheel's scripts go into the environment's bin/, on an activated venv's PATH."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sysconfig
from pathlib import Path

import pytest

import zarrgpu


def test_pip_install_puts_the_command_on_path():
    try:
        dist = importlib.metadata.distribution("zarrgpu")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("zarrgpu is imported from a source tree, not installed by pip")
    if (dist.read_text("INSTALLER") or "").strip() != "pip":
        # bench/gpu/python_pkg.sh puts a bare dist-info beside a build tree's module.
        pytest.skip("zarrgpu's distribution was not installed by pip")
    exe = Path(sysconfig.get_path("scripts")) / "zarrgpu"
    assert exe.is_file(), f"pip installed zarrgpu {dist.version} without the command {exe}"
    r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"zarrgpu {dist.version}")
    assert ("built in" in r.stdout) == zarrgpu.built_with_cuda()


def test_device_read_without_a_gpu_says_no_cuda_device(tmp_path):
    """A CUDA build on a machine without a GPU (or without the driver): a clean DeviceError."""
    if not zarrgpu.built_with_cuda() or zarrgpu.cuda_available():
        pytest.skip("needs a CUDA build on a machine without a usable GPU")
    import numpy as np

    a = zarrgpu.create_array(tmp_path / "a.zarr", shape=(4,), dtype="f4")
    a[...] = np.arange(4, dtype="f4")
    with pytest.raises(zarrgpu.DeviceError, match="no CUDA device"):
        a.read(device="cuda")
    np.testing.assert_array_equal(a.read(), np.arange(4, dtype="f4"))  # the CPU path still works
