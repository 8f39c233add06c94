"""zarrgpu.zarr.CodecPipeline: zarr-python's codec pipeline with chunk batches decoded
and encoded by zarrgpu's engine.

Selected with ``zarr.config.set({"codec_pipeline.path": "zarrgpu.zarr.CodecPipeline"})``.
It is zarr-python's BatchedCodecPipeline (same store access, merging of partial writes,
write_empty_chunks, sharding) with three changes:

- a read fetches every chunk of the request through the store's async API at once
  (bounded by ``BATCH_BYTES`` of decoded chunks) and decodes them in one zarrgpu batch:
  on CPU threads into host buffers, or, when the output is a GPU buffer
  (``zarr.config.enable_gpu()``), with zarrgpu's GPU zstd decoder for chains it decodes
  on the GPU (``bytes`` little-endian + ``zstd``; format 2: compressor zstd) and on CPU
  threads otherwise (zarr-python decodes those on the CPU too);
- a write encodes its chunks in one batch on CPU threads;
- sharded arrays keep zarr-python's ShardingCodec and its partial reads (the index, then
  only the inner chunks a request touches); the inner chunks come back through this
  pipeline, so they decode in zarrgpu batches, a shard at a time.

Arrays on a store zarrgpu reads itself (zarr-python's LocalStore, KvikIO's GDSStore) skip
all of that for reads that are one selection per dimension: zarr-python builds the pipeline
with the array's metadata and store (``from_array_metadata_and_store``), and a read goes to
zarrgpu's own read pipeline by path in one call (``_by_path.py``), straight into the output.

Chains or data types zarrgpu does not take (strings, structured types, codecs it does not
implement) run through zarr-python's own code with a ``FallbackWarning`` naming the reason.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from zarr.codecs.sharding import ShardingCodec
from zarr.core.codec_pipeline import BatchedCodecPipeline, fill_value_or_default
from zarr.core.common import concurrent_map
from zarr.core.config import config as zarr_config

from ._by_path import ByPathReader, count_route, read_planned
from ._chunk_codec import Unsupported, compile_chain
from ._device_decode import decode_on_device, is_gpu_prototype

# Decoded bytes one batch may hold: a read of more is split into batches of about this.
BATCH_BYTES = 256 << 20


# A chunk decoded straight into the read's output: nothing left to place.
PLACED = object()


class FallbackWarning(UserWarning):
    """zarrgpu.zarr.CodecPipeline handed chunks to zarr-python's own pipeline; says why."""


def _warn_fallback(reason: str) -> None:
    warnings.warn(
        f"zarrgpu.zarr.CodecPipeline: {reason}; these chunks go through zarr-python's BatchedCodecPipeline",
        FallbackWarning,
        stacklevel=3,
    )


def _native(dtype: np.dtype) -> np.dtype:
    return dtype.newbyteorder("=") if dtype.byteorder not in "=|" else dtype


def _chunk_nbytes(spec: Any) -> int:
    return math.prod(spec.shape) * spec.dtype.to_native_dtype().itemsize


def _batches(items: list, spec_of) -> list[list]:
    """`items` cut into runs of at most BATCH_BYTES decoded bytes (at least one item each)."""
    out, run, size = [], [], 0
    for item in items:
        n = _chunk_nbytes(spec_of(item))
        if run and size + n > BATCH_BYTES:
            out.append(run)
            run, size = [], 0
        run.append(item)
        size += n
    if run:
        out.append(run)
    return out


def _as_array(decoded: Any, spec: Any) -> Any:
    """A flat uint8 chunk (NumPy or CuPy) as zarr-python's NDBuffer of the chunk's shape and dtype."""
    want = spec.dtype.to_native_dtype()
    arr = decoded.view(_native(want)).reshape(spec.shape)
    if arr.dtype != want:  # format 2 big-endian types: zarr-python hands back the stored order
        arr = arr.astype(want)
    return spec.prototype.nd_buffer.from_ndarray_like(arr)


@dataclass(frozen=True)
class CodecPipeline(BatchedCodecPipeline):
    """zarr-python's codec pipeline with zarrgpu batches; see the module's docstring."""

    # Set by from_array_metadata_and_store (arrays, not the inner chunks of shards): whether and
    # how the array's reads go to zarrgpu by path.
    by_path: ByPathReader | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_array_metadata_and_store(cls, array_metadata: Any, store: Any) -> CodecPipeline:
        from zarr.codecs._v2 import V2Codec

        if array_metadata.zarr_format == 2:
            codecs = [V2Codec(filters=array_metadata.filters, compressor=array_metadata.compressor)]
        else:
            codecs = list(array_metadata.codecs)
        pipeline = cls.from_codecs(codecs)
        return dataclasses.replace(pipeline, by_path=ByPathReader(array_metadata, store))

    def evolve_from_array_spec(self, array_spec: Any) -> CodecPipeline:
        return dataclasses.replace(super().evolve_from_array_spec(array_spec), by_path=self.by_path)

    def _codecs(self) -> list:
        return list(self)

    def _chain(self, spec: Any) -> Any:
        """The zarrgpu chain for chunks of `spec`, or None (with a FallbackWarning)."""
        if isinstance(self.array_bytes_codec, ShardingCodec):
            return None  # zarr-python's ShardingCodec; the inner chunks come back here
        try:
            return compile_chain(self._codecs(), spec)
        except Unsupported as e:
            _warn_fallback(str(e))
            return None

    # ---- decoding -------------------------------------------------------------------
    def _decode_now(self, chain: Any, encoded: list, specs: list, keys: list[str], targets: list | None = None) -> list:
        """Decodes a batch (None entries stay None); runs in a worker thread. `targets[i]`, when
        given and not None, is where chunk i decodes to (a flat uint8 view of the read's output):
        its result is then PLACED."""
        present = [i for i, b in enumerate(encoded) if b is not None]
        result: list = [None] * len(encoded)
        if not present:
            return result
        spec = specs[present[0]]
        names = [keys[i] for i in present] if keys else []
        if is_gpu_prototype(spec.prototype):
            flat = decode_on_device(chain, [encoded[i] for i in present], names)
        else:
            direct = [targets[i] if targets else None for i in present]
            staging = np.empty((sum(t is None for t in direct), chain.chunk_bytes), dtype=np.uint8)
            rows = iter(staging)
            flat = [t if t is not None else next(rows) for t in direct]
            chain.decode([_host_bytes(encoded[i]) for i in present], flat, names)
            flat = [PLACED if t is not None else f for t, f in zip(direct, flat, strict=True)]
        for i, chunk in zip(present, flat, strict=True):
            result[i] = chunk if chunk is PLACED else _as_array(chunk, specs[i])
        return result

    async def _decode(self, chunk_bytes_and_specs: list, keys: list[str], targets: list | None = None) -> list:
        if not chunk_bytes_and_specs:
            return []
        encoded = [b for b, _ in chunk_bytes_and_specs]
        specs = [s for _, s in chunk_bytes_and_specs]
        chain = self._chain(specs[0])
        if chain is None or any(s.shape != specs[0].shape for s in specs):
            return list(await super().decode_batch(chunk_bytes_and_specs))
        return await asyncio.to_thread(self._decode_now, chain, encoded, specs, keys, targets)

    async def decode_batch(self, chunk_bytes_and_specs):
        return await self._decode(list(chunk_bytes_and_specs), [])

    async def decode(self, chunk_bytes_and_specs):
        items = list(chunk_bytes_and_specs)
        output: list = []
        for batch in _batches(items, lambda item: item[1]):
            output.extend(await self._decode(batch, []))
        return output

    # ---- encoding -------------------------------------------------------------------
    def _encode_now(self, chain: Any, arrays: list, specs: list) -> list:
        present = [i for i, a in enumerate(arrays) if a is not None]
        result: list = [None] * len(arrays)
        if not present:
            return result
        host = []
        for i in present:
            a = arrays[i].as_numpy_array()  # GPU chunks come to the host: encoding runs on the CPU
            want = _native(specs[i].dtype.to_native_dtype())
            host.append(np.ascontiguousarray(a, dtype=want).reshape(-1).view(np.uint8))
        for i, b in zip(present, chain.encode(host), strict=True):
            result[i] = specs[i].prototype.buffer.from_bytes(b)
        return result

    async def encode_batch(self, chunk_arrays_and_specs):
        items = list(chunk_arrays_and_specs)
        if not items:
            return []
        arrays = [a for a, _ in items]
        specs = [s for _, s in items]
        chain = self._chain(specs[0])
        if chain is None or any(s.shape != specs[0].shape for s in specs):
            return list(await super().encode_batch(items))
        return await asyncio.to_thread(self._encode_now, chain, arrays, specs)

    async def encode(self, chunk_arrays_and_specs):
        output: list = []
        for batch in _batches(list(chunk_arrays_and_specs), lambda item: item[1]):
            output.extend(await self.encode_batch(batch))
        return output

    # ---- reads and writes ---------------------------------------------------------
    async def _read_whole_chunks(self, batch_info: list, out: Any, drop_axes: tuple[int, ...]) -> None:
        encoded = await concurrent_map(
            [(getter, spec.prototype) for getter, spec, *_ in batch_info],
            lambda getter, prototype: getter.get(prototype),
            zarr_config.get("async.concurrency"),
        )
        keys = [str(getattr(getter, "path", "")) for getter, *_ in batch_info]
        targets = [_direct_target(out, spec, chunk_sel, out_sel, drop_axes)
                   for _, spec, chunk_sel, out_sel, _ in batch_info]
        decoded = await self._decode([(b, info[1]) for b, info in zip(encoded, batch_info, strict=True)], keys,
                                     targets)
        for chunk, (_, spec, chunk_selection, out_selection, _) in zip(decoded, batch_info, strict=True):
            if chunk is PLACED:
                continue
            if chunk is None:
                out[out_selection] = fill_value_or_default(spec)
                continue
            part = chunk[chunk_selection]
            if drop_axes:
                part = part.squeeze(axis=drop_axes)
            out[out_selection] = part

    def _read_by_path_now(self, planned: tuple) -> None:
        read_planned(*planned)

    async def read(self, batch_info, out, drop_axes=()):
        items = list(batch_info)
        if self.by_path is not None:
            planned = self.by_path.plan(items, out, tuple(drop_axes)) if self.by_path.usable else None
            if planned is not None:
                count_route("by_path")
                await asyncio.to_thread(self._read_by_path_now, planned)
                return
            count_route("through_store")
        if self.supports_partial_decode:  # sharding alone: zarr-python's partial shard reads
            await super().read(items, out, drop_axes)
            return
        for batch in _batches(items, lambda item: item[1]):
            await self._read_whole_chunks(batch, out, drop_axes)

    async def write(self, batch_info, value, drop_axes=()):
        items = list(batch_info)
        if self.supports_partial_encode:
            await super().write(items, value, drop_axes)
            return
        # zarr-python's write_batch (reading chunks a write covers partly, merging,
        # write_empty_chunks) with one batch per BATCH_BYTES instead of one per chunk.
        for batch in _batches(items, lambda item: item[1]):
            await self.write_batch(batch, value, drop_axes)


def _direct_target(out: Any, spec: Any, chunk_selection: tuple, out_selection: tuple, drop_axes: tuple) -> Any:
    """A flat uint8 view of the part of a host `out` a whole chunk fills, when decoding straight into
    it is the same as placing the decoded chunk (basic slices, C-contiguous, the chunk's native
    dtype); else None. Saves the copy from a decoded chunk into the output."""
    if drop_axes or is_gpu_prototype(spec.prototype) or len(chunk_selection) != len(spec.shape):
        return None
    for sel, n in zip(chunk_selection, spec.shape, strict=True):
        if not (isinstance(sel, slice) and sel.step in (None, 1) and (sel.start or 0) == 0
                and (sel.stop is None or sel.stop >= n)):
            return None
    if not all(isinstance(sel, slice) for sel in out_selection):  # basic slicing: a view, never a copy
        return None
    array = out.as_ndarray_like()
    if not isinstance(array, np.ndarray):
        return None
    target = array[out_selection]
    if (target.shape != tuple(spec.shape) or target.dtype != spec.dtype.to_native_dtype()
            or target.dtype.kind not in "biufc" or not target.dtype.isnative
            or not target.flags.c_contiguous or not target.flags.writeable):
        return None
    return target.reshape(-1).view(np.uint8)


def _host_bytes(buffer: Any) -> np.ndarray:
    a = buffer.as_numpy_array()
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)
