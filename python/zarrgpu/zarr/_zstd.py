"""zarrgpu.zarr.ZstdCodec: zarr-python's ``zstd`` codec with batched GPU decoding.

Selected with ``zarr.config.set({"codecs.zstd": "zarrgpu.zarr.ZstdCodec"})``. A batch of
chunks in GPU buffers (``zarr.config.enable_gpu()``) is decoded in one launch of zarrgpu's
GPU zstd decoder (bit-exact with libzstd); chunks in host buffers, and GPU batches when
this machine has no GPU decoder or a frame does not state its decoded size, decode through
libzstd (numcodecs), as zarr-python's own codec does. Encoding always runs on the CPU.
Same metadata as zarr-python's codec: arrays written with either read with the other."""

from __future__ import annotations

import struct
from typing import Any

from zarr.codecs.zstd import ZstdCodec as _ZarrZstdCodec

from . import _device_decode
from ._device_decode import gpu_decoder_available, is_gpu_prototype

_MAGIC = 0xFD2FB528


def frame_content_size(header: bytes) -> int | None:
    """The decoded size a zstd frame's header states (RFC 8878 §3.1.1.1), or None when
    the frame does not state it or `header` is not the start of a zstd frame."""
    if len(header) < 5 or struct.unpack_from("<I", header)[0] != _MAGIC:
        return None
    descriptor = header[4]
    fcs_flag, single_segment, dict_flag = descriptor >> 6, (descriptor >> 5) & 1, descriptor & 3
    pos = 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[dict_flag]
    size = (1 if single_segment else 0, 2, 4, 8)[fcs_flag]
    if size == 0 or len(header) < pos + size:
        return None
    value = int.from_bytes(header[pos:pos + size], "little")
    return value + 256 if size == 2 else value


# The longest frame header: magic, descriptor, window, 4-byte dictionary id, 8-byte size.
_MAX_HEADER = 18


class ZstdCodec(_ZarrZstdCodec):
    """zarr-python's zstd codec; GPU buffers decode in batches on the GPU (see the module)."""

    async def decode(self, chunk_bytes_and_specs):
        items = list(chunk_bytes_and_specs)
        present = [i for i, (b, _) in enumerate(items) if b is not None]
        if not present or not is_gpu_prototype(items[present[0]][1].prototype) or not gpu_decoder_available():
            return await super().decode(items)
        import asyncio

        return await asyncio.to_thread(self._decode_on_gpu, items, present)

    def _decode_on_gpu(self, items: list, present: list[int]) -> list:
        import cupy

        frames = [cupy.ascontiguousarray(items[i][0].as_array_like()).reshape(-1).view(cupy.uint8) for i in present]
        heads = cupy.asnumpy(cupy.concatenate([f[:_MAX_HEADER] for f in frames])) if frames else b""
        sizes, offset = [], 0
        for f in frames:
            n = min(_MAX_HEADER, f.size)
            sizes.append(frame_content_size(bytes(heads[offset:offset + n])))
            offset += n
        result: list[Any] = [None] * len(items)
        if any(s is None for s in sizes):  # a frame without its size: libzstd on the host
            for i in present:
                result[i] = self._decode_sync(items[i][0], items[i][1])
            return result
        decoded = _device_decode.decode_zstd_frames(frames, sizes, [])  # through the module: one entry for both paths
        for i, chunk in zip(present, decoded, strict=True):
            result[i] = items[i][1].prototype.buffer.from_array_like(chunk)
        return result
