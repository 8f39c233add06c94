"""zarrgpu.create_array / create_group: metadata assembled here, validated and
written by the C++ core (parse_zarr_json / parse_zarray, Array::create)."""

from __future__ import annotations

import base64
import json
import math
import os
from typing import Any, Sequence

import numpy as np

from . import _zarrgpu
from ._dtypes import VARIABLE_LENGTH, data_type_for_create
from .array import Array
from .attributes import attributes_json
from .errors import InvalidArgumentError
from .group import Group

_ARRAY_TO_BYTES = {"bytes", "sharding_indexed", "vlen-utf8", "vlen-bytes"}
DEFAULT_COMPRESSOR_V3 = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
DEFAULT_COMPRESSOR_V2 = {"id": "zstd", "level": 3}


def _url(store: Any) -> str:
    return os.fspath(store) if isinstance(store, os.PathLike) else str(store)


def _float_json(x: float) -> Any:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


_NAT = -(2**63)  # NumPy's NaT: int64's minimum, as zarr-python writes it


def _time_json(value: Any, data_type: dict) -> int:
    if value is None or (isinstance(value, str) and value == "NaT"):
        return _NAT
    # np.timedelta64 is an np.integer: test for the time scalars first.
    if isinstance(value, (int, np.integer)) and not isinstance(value, (np.datetime64, np.timedelta64)):
        return int(value)
    config = data_type["configuration"]
    unit = f"{config['scale_factor']}{config['unit']}" if config["unit"] != "generic" else "generic"
    kind = "M8" if data_type["name"] == "numpy.datetime64" else "m8"
    return int(np.asarray(value).astype(f"<{kind}[{unit}]" if unit != "generic" else f"<{kind}").view(np.int64))


def _text_fill_json(value: Any, name: str, data_type: Any) -> Any:
    """zarr-python 3's JSON forms: str for string and fixed_length_utf32, base64 for the bytes types."""
    if name in ("string", "fixed_length_utf32"):
        text = "" if value is None else str(value)
        if name == "fixed_length_utf32":
            text = text[: data_type["configuration"]["length_bytes"] // 4]
        return text
    raw = b"" if value is None else (value.tobytes() if isinstance(value, np.void) else bytes(value))
    if name != "variable_length_bytes":
        raw = raw[: data_type["configuration"]["length_bytes"]]
    if name == "null_terminated_bytes":
        raw = raw.rstrip(b"\0")
    return base64.standard_b64encode(raw).decode("ascii")


def _fill_value_json(value: Any, name: str, data_type: Any = None) -> Any:
    if name in ("numpy.datetime64", "numpy.timedelta64"):
        return _time_json(value, data_type)
    if name in VARIABLE_LENGTH or name in ("fixed_length_utf32", "null_terminated_bytes", "raw_bytes"):
        return _text_fill_json(value, name, data_type)
    if value is None:
        value = 0
    if name == "bool":
        return bool(value)
    if name.startswith("complex"):
        c = complex(value)
        return [_float_json(c.real), _float_json(c.imag)]
    if name.startswith(("float", "bfloat")):
        return _float_json(float(value))
    return int(value)


def _codec(c: Any) -> dict:
    if isinstance(c, str):
        return {"name": c}
    if isinstance(c, dict) and "name" in c:
        return dict(c)
    raise InvalidArgumentError(f"a codec is a name or a dict with 'name' (and 'configuration'), got {c!r}")


def _chain(codecs: Sequence[Any] | None, serializer: dict) -> list[dict]:
    """A full v3 chain; a list without an array-to-bytes codec gets `serializer` first
    (`bytes`, little-endian; `vlen-utf8` / `vlen-bytes` for the variable-length types)."""
    if codecs is None:
        return [dict(serializer), dict(DEFAULT_COMPRESSOR_V3)]
    chain = [_codec(c) for c in codecs]
    if not any(c["name"] in _ARRAY_TO_BYTES for c in chain):
        chain.insert(0, dict(serializer))
    return chain


def _serializer(name: str, data_type: Any) -> dict:
    if name == "string":
        return {"name": "vlen-utf8", "configuration": {}}
    if name == "variable_length_bytes":
        return {"name": "vlen-bytes", "configuration": {}}
    if name in ("null_terminated_bytes", "raw_bytes"):
        return {"name": "bytes"}  # 1-byte components: no endian, as zarr-python writes it
    return {"name": "bytes", "configuration": {"endian": "little"}}


def _ints(x: Any, what: str, ndim: int) -> list[int]:
    if isinstance(x, (int, np.integer)):
        x = (int(x),) * ndim
    out = [int(v) for v in x]
    if len(out) != ndim:
        raise InvalidArgumentError(f"{what} has {len(out)} entries, the array has {ndim} dimensions")
    return out


def create_array(store: Any, path: str = "", *, shape: Sequence[int], dtype: Any, chunks: Any = None,
                 codecs: Sequence[Any] | None = None, zarr_format: int = 3, fill_value: Any = None,
                 dimension_names: Sequence[str | None] | None = None, attrs: dict | None = None,
                 shards: Any = None, compressor: Any = "default", filters: list | None = None,
                 chunk_key_encoding: str = "default", overwrite: bool = False) -> Array:
    """Creates an array (metadata only; chunks appear as they are written).

    - ``codecs`` (format 3): the codec chain, names or ``{"name", "configuration"}`` dicts; a chain
      without ``bytes``/``sharding_indexed`` gets ``bytes`` first. Default: bytes + zstd level 3.
    - ``shards`` (format 3): the shard shape; ``chunks`` are then the inner chunks and ``codecs``
      the inner chain of a ``sharding_indexed`` codec (index: bytes + crc32c, at the end).
    - ``compressor`` / ``filters`` (format 2): numcodecs-style dicts (default zstd level 3).
    - ``dimension_names``: v3 metadata; format 2 stores them as ``_ARRAY_DIMENSIONS`` (xarray's way).
    """
    shape = [int(n) for n in shape]
    ndim = len(shape)
    name, data_type, v2_dtype, object_filters = data_type_for_create(dtype)
    chunk_shape = _ints(chunks if chunks is not None else shape, "chunks", ndim)
    chunk_shape = [max(c, 1) for c in chunk_shape]
    attrs = dict(attrs or {})
    if zarr_format == 3:
        grid = chunk_shape
        chain = _chain(codecs, _serializer(name, data_type))
        if shards is not None:
            grid = _ints(shards, "shards", ndim)
            chain = [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": chunk_shape,
                "codecs": chain,
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                "index_location": "end",
            }}]
        doc = {
            "zarr_format": 3,
            "node_type": "array",
            "shape": shape,
            "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid}},
            "chunk_key_encoding": ({"name": "default", "configuration": {"separator": "/"}}
                                   if chunk_key_encoding == "default"
                                   else {"name": "v2", "configuration": {"separator": "."}}),
            "fill_value": _fill_value_json(fill_value, name, data_type),
            "codecs": chain,
        }
        if dimension_names is not None:
            doc["dimension_names"] = list(dimension_names)
    elif zarr_format == 2:
        if shards is not None:
            raise InvalidArgumentError("shards need zarr_format=3")
        if codecs is not None:
            raise InvalidArgumentError("codecs= is format 3; use compressor= and filters= with zarr_format=2")
        if dimension_names is not None:
            attrs["_ARRAY_DIMENSIONS"] = list(dimension_names)
        if name == "bfloat16":
            raise TypeError("Zarr format 2 has no bfloat16 data type; use zarr_format=3")
        if object_filters is not None:
            # Zarr v2: "|O" arrays name their object codec as the first filter.
            filters = object_filters + list(filters or [])
        doc = {
            "zarr_format": 2,
            "shape": shape,
            "chunks": chunk_shape,
            "dtype": v2_dtype,
            "compressor": DEFAULT_COMPRESSOR_V2 if compressor == "default" else compressor,
            "filters": filters,
            "fill_value": _fill_value_json(fill_value, name, data_type),
            "order": "C",
            "dimension_separator": "." if chunk_key_encoding in ("default", "v2") else "/",
        }
    else:
        raise InvalidArgumentError(f"zarr_format must be 2 or 3, got {zarr_format!r}")
    url = _url(store)
    core = _zarrgpu.Array.create(url, path.strip("/"), json.dumps(doc), attributes_json(attrs), overwrite)
    return Array(core, url, mode="r+")


def create_group(store: Any, path: str = "", *, zarr_format: int = 3, attrs: dict | None = None,
                 overwrite: bool = False) -> Group:
    """Creates a group (zarr.json, or .zgroup/.zattrs for format 2)."""
    if zarr_format not in (2, 3):
        raise InvalidArgumentError(f"zarr_format must be 2 or 3, got {zarr_format!r}")
    url = _url(store)
    core = _zarrgpu.Group.create(url, path.strip("/"), zarr_format, attributes_json(attrs), overwrite)
    return Group(core, url, mode="r+")
