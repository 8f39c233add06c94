"""Zarr data types <-> NumPy dtypes.

Besides the numbers: zarr-python 3's NumPy-derived types read as the NumPy
dtypes zarr-python gives — ``fixed_length_utf32`` as ``<U<n>``,
``null_terminated_bytes`` as ``|S<n>``, ``raw_bytes`` as ``|V<n>``,
``numpy.datetime64`` / ``numpy.timedelta64`` as ``datetime64[unit]`` /
``timedelta64[unit]``, ``string`` as NumPy's StringDType (object on NumPy 1),
and ``variable_length_bytes`` as object arrays of ``bytes``.

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


STRING = "string"
VARIABLE_LENGTH_BYTES = "variable_length_bytes"
VARIABLE_LENGTH = (STRING, VARIABLE_LENGTH_BYTES)
_FIXED_V3 = {"U": "fixed_length_utf32", "S": "null_terminated_bytes", "V": "raw_bytes"}
_TIME_V3 = {"M": "numpy.datetime64", "m": "numpy.timedelta64"}


def string_dtype() -> np.dtype:
    """What zarr-python 3 reads string arrays as: StringDType on NumPy 2, else object."""
    string_dtype_cls = getattr(np.dtypes, "StringDType", None)
    return np.dtype(string_dtype_cls()) if string_dtype_cls is not None else np.dtype(object)


def array_dtype(meta: dict) -> np.dtype:
    """The NumPy dtype of host reads of the array that ``meta`` (node_json.cpp) describes."""
    name = meta["data_type"]
    if name == STRING:
        return string_dtype()
    if name == VARIABLE_LENGTH_BYTES:
        return np.dtype(object)
    if name in _NUMPY or name == "bfloat16":
        return numpy_dtype(name)
    return np.dtype(meta["numpy_dtype"])  # "<U5", "|S4", "|V8", "<M8[10s]": native (little-endian) order


def is_numeric(zarr_name_: str) -> bool:
    return zarr_name_ in _NUMPY or zarr_name_ == "bfloat16"


def data_type_for_create(dtype) -> tuple[str, object, str, list | None]:
    """(v3 name, zarr.json data_type, .zarray dtype, v2 object codec filters) for create_array.

    ``str`` / StringDType / object give ``string``; ``bytes`` gives
    ``variable_length_bytes``; "U"/"S"/"V" and datetime64/timedelta64 dtypes the
    parametrised types, as zarr-python 3 writes them."""
    if dtype is str or (isinstance(dtype, str) and dtype == STRING):
        return STRING, STRING, "|O", [{"id": "vlen-utf8"}]
    if dtype is bytes or (isinstance(dtype, str) and dtype in (VARIABLE_LENGTH_BYTES, "bytes")):
        return VARIABLE_LENGTH_BYTES, VARIABLE_LENGTH_BYTES, "|O", [{"id": "vlen-bytes"}]
    if isinstance(dtype, str) and dtype == "bfloat16":
        return "bfloat16", "bfloat16", "bfloat16", None
    dt = np.dtype(dtype)
    if dt.fields is not None or dt.subdtype is not None:
        raise TypeError(f"zarrgpu does not support the structured or subarray data type {dt!s}")
    if dt.kind in "OT":
        return STRING, STRING, "|O", [{"id": "vlen-utf8"}]
    if dt.kind in _FIXED_V3:
        if dt.itemsize == 0:
            raise TypeError(f"zarrgpu needs a length for the data type {dt!s} (such as U5 or S8)")
        name = _FIXED_V3[dt.kind]
        return name, {"name": name, "configuration": {"length_bytes": dt.itemsize}}, dt.newbyteorder("<").str, None
    if dt.kind in _TIME_V3:
        unit, scale = np.datetime_data(dt)
        name = _TIME_V3[dt.kind]
        return (name, {"name": name, "configuration": {"unit": unit, "scale_factor": int(scale)}},
                dt.newbyteorder("<").str, None)
    name = zarr_name(dt)
    return name, name, (v2_dtype_str(name) if name != "bfloat16" else "bfloat16"), None
