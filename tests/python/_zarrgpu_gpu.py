"""Shared skips and a small store for the GPU tests (they skip cleanly without a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")

requires_gpu = pytest.mark.skipif(not zarrgpu.cuda_available(), reason="no CUDA GPU (or a CPU-only build)")


def make_store(path, zarr_format=3, dtype="float32"):
    data = (np.arange(24 * 30).reshape(24, 30) % 97).astype(dtype)
    a = zarrgpu.create_array(path, shape=data.shape, dtype=dtype, chunks=(8, 7), zarr_format=zarr_format)
    a[...] = data
    return zarrgpu.open(path), data
