"""Python values from the metadata document the C++ core describes (node_json.cpp)."""

from __future__ import annotations

import base64
import math
import struct
from typing import Any

import numpy as np

from ._dtypes import numpy_dtype

_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _float_from_json(value: Any, zarr_type: str) -> float:
    if isinstance(value, str):
        if value in _SPECIAL:
            return _SPECIAL[value]
        if value.startswith("0x"):  # Zarr v3: the float's bits in hex
            bits = int(value, 16)
            if zarr_type in ("float16",):
                return float(np.frombuffer(struct.pack("<H", bits), "<f2")[0])
            if zarr_type == "bfloat16":
                return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
            if zarr_type in ("float32", "complex64"):
                return struct.unpack("<f", struct.pack("<I", bits))[0]
            return struct.unpack("<d", struct.pack("<Q", bits))[0]
    return float(value)


def fill_value(value: Any, zarr_type: str, dtype: np.dtype | None = None) -> Any:
    """The fill value as a NumPy scalar of the array's dtype (None for a format 2 null).

    As zarr-python 3 gives it: str for string arrays, bytes for bytes arrays,
    np.str_ / np.bytes_ / np.void for the fixed-length types, datetime64 /
    timedelta64 of the array's unit for times (INT64_MIN is NaT)."""
    if value is None:
        return None
    if zarr_type == "string":
        return str(value)
    if zarr_type == "variable_length_bytes":
        return base64.standard_b64decode(value)
    if zarr_type in ("fixed_length_utf32", "null_terminated_bytes", "raw_bytes"):
        raw = value if zarr_type == "fixed_length_utf32" else base64.standard_b64decode(value)
        return np.array(raw, dtype=dtype)[()] if zarr_type != "raw_bytes" else np.void(raw.ljust(dtype.itemsize, b"\0"))
    if zarr_type in ("numpy.datetime64", "numpy.timedelta64"):
        return np.int64(value).view(dtype)
    dt = numpy_dtype(zarr_type)
    if zarr_type.startswith("complex"):
        re, im = value
        return dt.type(complex(_float_from_json(re, zarr_type), _float_from_json(im, zarr_type)))
    if zarr_type in ("float16", "bfloat16", "float32", "float64"):
        return dt.type(_float_from_json(value, zarr_type))
    if zarr_type == "bool":
        return np.bool_(bool(value))
    return dt.type(int(value))


def inner_chunk_shape(meta: dict) -> tuple[int, ...] | None:
    """The first sharding level's inner chunk shape, or None for an unsharded array."""
    codecs = meta.get("codecs") or []
    if codecs and codecs[0]["name"] == "sharding_indexed":
        return tuple(codecs[0]["configuration"]["chunk_shape"])
    return None
