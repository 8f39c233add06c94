"""zarrgpu: Zarr (format 2 and 3) reads straight into GPU memory.

    import zarrgpu
    a = zarrgpu.open("era5.zarr/t2m")
    host = a[0, :, :]                    # NumPy, read without a copy
    dev = a.read(device="cuda")          # zarrgpu.DeviceArray in GPU memory
    t = torch.from_dlpack(dev)           # zero-copy (also cupy, jax)

    xr.open_dataset("era5.zarr", engine="zarrgpu", device="cuda")
"""

from __future__ import annotations

import os
from typing import Any

from . import _zarrgpu
from ._dtypes import BFloat16FallbackWarning
from ._zarrgpu import DeviceArray
from .array import Array
from .create import create_array, create_group
from .errors import (
    BoundsError,
    CorruptDataError,
    DeviceError,
    InternalError,
    InvalidArgumentError,
    InvalidMetadataError,
    NotFoundError,
    ReadOnlyError,
    ResourceExhaustedError,
    StorageError,
    UnsupportedError,
    ZarrgpuError,
)
from .group import Group
from .storage_options import apply_storage_options
from ._settings import (
    CodecReport,
    Config,
    ReadReport,
    config,
    configured,
    last_read_report,
    release_device_memory,
    set_config,
)

__version__ = "0.1.0"

_MODES = ("r", "r+", "a")


def cuda_available() -> bool:
    """Whether this build has the CUDA path and a GPU is present now."""
    return bool(_zarrgpu.cuda_available())


def built_with_cuda() -> bool:
    return bool(_zarrgpu.built_with_cuda)


def _split(path_or_url: Any, path: str, storage_options: dict | None = None) -> tuple[str, str]:
    url = os.fspath(path_or_url) if isinstance(path_or_url, os.PathLike) else str(path_or_url)
    apply_storage_options(url, storage_options)
    return url, path.strip("/")


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise InvalidArgumentError(f"mode must be one of {_MODES} (create nodes with create_array/create_group), got {mode!r}")


def open(path_or_url: Any, mode: str = "r", *, path: str = "", consolidated: bool | None = None,
         storage_options: dict | None = None) -> Array | Group:
    """Opens the array or group at ``path`` inside the store ``path_or_url``
    (a directory, a ``file://`` URL, or, read-only, an ``http(s)://``, ``s3://bucket/prefix``
    or ``gs://bucket/prefix`` URL).
    ``mode``: "r" (read-only) or "r+"/"a" (writes allowed).
    ``consolidated`` (groups, as zarr-python's ``use_consolidated``): None uses consolidated
    metadata when present, False reads the members' own metadata, True requires it.
    ``storage_options`` (S3): region, endpoint_url, profile, key, secret, token, anon; (GCS):
    region, endpoint_url, key, secret (an HMAC key), anon; kept for this URL in this process."""
    _check_mode(mode)
    url, path = _split(path_or_url, path, storage_options)
    core = _zarrgpu.open_member(url, path, consolidated)
    if isinstance(core, _zarrgpu.Array):
        return Array(core, url, mode)
    return Group(core, url, mode, consolidated)


def open_array(path_or_url: Any, mode: str = "r", *, path: str = "", storage_options: dict | None = None) -> Array:
    url, path = _split(path_or_url, path, storage_options)
    _check_mode(mode)
    return Array(_zarrgpu.Array.open(url, path), url, mode)


def open_group(path_or_url: Any, mode: str = "r", *, path: str = "", consolidated: bool | None = None,
               storage_options: dict | None = None) -> Group:
    url, path = _split(path_or_url, path, storage_options)
    _check_mode(mode)
    return Group(_zarrgpu.Group.open(url, path, consolidated), url, mode, consolidated)


def consolidate_metadata(path_or_url: Any, *, path: str = "") -> Group:
    """Writes the consolidated metadata of the group at ``path`` from its members' own
    metadata (v3: inline in zarr.json; v2: .zmetadata), as zarr-python's
    ``consolidate_metadata``; returns the group, opened with it."""
    url, path = _split(path_or_url, path)
    _zarrgpu.consolidate_metadata(url, path)
    return open_group(url, "r+", path=path)


__all__ = [
    "Array", "Group", "DeviceArray", "open", "open_array", "open_group", "create_array", "create_group",
    "consolidate_metadata",
    "Config", "config", "set_config", "configured", "ReadReport", "CodecReport", "last_read_report",
    "release_device_memory",
    "cuda_available", "built_with_cuda", "BFloat16FallbackWarning",
    "ZarrgpuError", "InvalidArgumentError", "BoundsError", "NotFoundError", "InvalidMetadataError",
    "UnsupportedError", "CorruptDataError", "StorageError", "DeviceError", "InternalError", "ReadOnlyError",
    "ResourceExhaustedError",
]
