"""Zarr data types <-> NumPy dtypes.

``bfloat16`` maps to ``ml_dtypes.bfloat16`` when ml_dtypes is installed. Without
it, bfloat16 arrays are returned as ``uint16`` holding the raw bit patterns (the
upper half of the float32 bits), and a :class:`BFloat16FallbackWarning` says so
once per process: ``arr.view(ml_dtypes.bfloat16)`` or
``(arr.astype(np.uint32) << 16).view(np.float32)`` recovers the values.
"""

from __future__ import annotations

import warnings

import numpy as np

_NUMPY = {
    "bool": np.dtype("bool"),
    "int8": np.dtype("int8"),
    "int16": np.dtype("<i2"),
    "int32": np.dtype("<i4"),
    "int64": np.dtype("<i8"),
    "uint8": np.dtype("uint8"),
    "uint16": np.dtype("<u2"),
    "uint32": np.dtype("<u4"),
    "uint64": np.dtype("<u8"),
    "float16": np.dtype("<f2"),
    "float32": np.dtype("<f4"),
    "float64": np.dtype("<f8"),
    "complex64": np.dtype("<c8"),
    "complex128": np.dtype("<c16"),
}


class BFloat16FallbackWarning(UserWarning):
    """bfloat16 data is returned as uint16 bit patterns because ml_dtypes is missing."""


_warned_bfloat16 = False


def bfloat16_dtype() -> np.dtype:
    try:
        import ml_dtypes
    except ImportError:
        global _warned_bfloat16
        if not _warned_bfloat16:
            _warned_bfloat16 = True
            warnings.warn(
                "ml_dtypes is not installed: bfloat16 arrays are returned as uint16 bit patterns "
                "(pip install ml_dtypes for a real bfloat16 dtype)",
                BFloat16FallbackWarning,
                stacklevel=3,
            )
        return np.dtype("<u2")
    return np.dtype(ml_dtypes.bfloat16)


def numpy_dtype(zarr_name: str) -> np.dtype:
    """The NumPy dtype of a Zarr v3 data type name ("float32", "bfloat16", ...)."""
    if zarr_name == "bfloat16":
        return bfloat16_dtype()
    try:
        return _NUMPY[zarr_name]
    except KeyError:
        raise ValueError(f"unknown Zarr data type {zarr_name!r}") from None


def zarr_name(dtype) -> str:
    """The Zarr v3 data type name of a NumPy dtype (or anything np.dtype accepts)."""
    if isinstance(dtype, str) and dtype == "bfloat16":
        return "bfloat16"
    dt = np.dtype(dtype)
    if dt.name == "bfloat16":
        return "bfloat16"
    if dt.kind == "b":
        return "bool"
    if dt.kind in "iufc":
        name = dt.name  # native-width names, byte order dropped: data is written little-endian
        if name in _NUMPY:
            return name
    raise TypeError(f"zarrgpu does not support the data type {dt!s} (supported: {', '.join(_NUMPY)}, bfloat16)")


def v2_dtype_str(zarr_name_: str) -> str:
    """The format 2 ``.zarray`` dtype string ("<f4", "|b1", ...)."""
    if zarr_name_ == "bfloat16":
        raise TypeError("Zarr format 2 has no bfloat16 data type; use zarr_format=3")
    dt = _NUMPY[zarr_name_]
    return dt.str
