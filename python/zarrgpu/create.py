"""zarrgpu.create_array / create_group: metadata assembled here, validated and
written by the C++ core (parse_zarr_json / parse_zarray, Array::create)."""

from __future__ import annotations

import json
import math
import os
from typing import Any, Sequence

import numpy as np

from . import _zarrgpu
from ._dtypes import numpy_dtype, v2_dtype_str, zarr_name
from .array import Array
from .attributes import attributes_json
from .errors import InvalidArgumentError
from .group import Group

_ARRAY_TO_BYTES = {"bytes", "sharding_indexed"}
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


def _fill_value_json(value: Any, name: str) -> Any:
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


def _chain(codecs: Sequence[Any] | None) -> list[dict]:
    """A full v3 chain; a list without an array-to-bytes codec gets `bytes` (little-endian) first."""
    if codecs is None:
        return [{"name": "bytes", "configuration": {"endian": "little"}}, dict(DEFAULT_COMPRESSOR_V3)]
    chain = [_codec(c) for c in codecs]
    if not any(c["name"] in _ARRAY_TO_BYTES for c in chain):
        chain.insert(0, {"name": "bytes", "configuration": {"endian": "little"}})
    return chain


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
    name = zarr_name(dtype)
    numpy_dtype(name)  # validates
    chunk_shape = _ints(chunks if chunks is not None else shape, "chunks", ndim)
    chunk_shape = [max(c, 1) for c in chunk_shape]
    attrs = dict(attrs or {})
    if zarr_format == 3:
        grid = chunk_shape
        chain = _chain(codecs)
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
            "data_type": name,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid}},
            "chunk_key_encoding": ({"name": "default", "configuration": {"separator": "/"}}
                                   if chunk_key_encoding == "default"
                                   else {"name": "v2", "configuration": {"separator": "."}}),
            "fill_value": _fill_value_json(fill_value, name),
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
        doc = {
            "zarr_format": 2,
            "shape": shape,
            "chunks": chunk_shape,
            "dtype": v2_dtype_str(name),
            "compressor": DEFAULT_COMPRESSOR_V2 if compressor == "default" else compressor,
            "filters": filters,
            "fill_value": _fill_value_json(fill_value, name),
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
