"""The zarrgpu chain behind a zarr-python codec chain: a one-chunk array document
(format 3 zarr.json, or format 2 .zarray for zarr-python's V2Codec) that the C++ core
validates exactly as when it opens an array, compiled once per distinct chunk layout."""

from __future__ import annotations

import atexit
import functools
import json
from typing import Any

import numpy as np

from .. import _zarrgpu
from ..errors import ZarrgpuError


class Unsupported(Exception):
    """The chain or data type is one zarrgpu does not take; the message says why."""


def _v2_document(codec: Any, spec: Any) -> dict:
    dtype = spec.dtype.to_json(zarr_format=2)
    name = dtype.get("name") if isinstance(dtype, dict) else dtype
    if not isinstance(name, str) or dtype.get("object_codec_id") is not None:
        raise Unsupported(f"data type {spec.dtype} (structured or object) is not supported")
    return {
        "zarr_format": 2,
        "shape": list(spec.shape),
        "chunks": list(spec.shape),
        "dtype": name,
        "compressor": codec.compressor.get_config() if codec.compressor is not None else None,
        "filters": [f.get_config() for f in codec.filters] if codec.filters else None,
        "order": spec.order,
        "fill_value": None,
    }


def _v3_document(codecs: list, spec: Any) -> dict:
    return {
        "zarr_format": 3,
        "node_type": "array",
        "shape": list(spec.shape),
        "data_type": spec.dtype.to_json(zarr_format=3),
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(spec.shape)}},
        "chunk_key_encoding": {"name": "default"},
        # Whole-chunk chains never read the fill value (sharding is left to zarr-python's
        # ShardingCodec, whose inner chunks come back through this pipeline).
        "fill_value": spec.dtype.to_json_scalar(spec.dtype.default_scalar(), zarr_format=3),
        "codecs": [c.to_dict() for c in codecs],
    }


def chunk_document(codecs: list, spec: Any) -> str:
    """The one-chunk document of `codecs` (a zarr-python chain) for chunks of `spec`;
    raises Unsupported when zarr-python's objects have no zarrgpu form."""
    from zarr.codecs._v2 import V2Codec

    native = spec.dtype.to_native_dtype()
    if not isinstance(native, np.dtype) or native.hasobject or native.fields is not None or native.kind in "OUSVTMm":
        raise Unsupported(f"data type {spec.dtype} is not a number or boolean")
    try:
        if len(codecs) == 1 and isinstance(codecs[0], V2Codec):
            doc = _v2_document(codecs[0], spec)
        else:
            doc = _v3_document(codecs, spec)
    except Unsupported:
        raise
    except Exception as e:  # a codec without to_dict/get_config, a dtype without JSON
        raise Unsupported(f"the codecs have no JSON form zarrgpu reads ({type(e).__name__}: {e})") from e
    return json.dumps(doc, sort_keys=True, allow_nan=True)


@functools.lru_cache(maxsize=256)
def _compile(document: str) -> Any:
    try:
        return _zarrgpu.ChunkBatchCodec.from_json(document, "")
    except (ZarrgpuError, NotImplementedError, ValueError) as e:
        return Unsupported(str(e))


# The compiled chains are C++ objects: free them before the extension module goes away at exit.
atexit.register(_compile.cache_clear)


def compile_chain(codecs: list, spec: Any) -> Any:
    """A _zarrgpu.ChunkBatchCodec for `codecs` and chunks of `spec`; raises Unsupported."""
    result = _compile(chunk_document(codecs, spec))
    if isinstance(result, Unsupported):
        raise result
    return result
