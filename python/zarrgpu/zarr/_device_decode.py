"""Batches of chunks that zarr-python holds in GPU buffers (``zarr.config.enable_gpu()``,
CuPy arrays): zstd frames go to zarrgpu's GPU decoder, device to device; chains without a
GPU form decode on CPU threads and come back to the GPU, as zarr-python does for them."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _zarrgpu


def is_gpu_prototype(prototype: Any) -> bool:
    """Whether zarr-python hands this pipeline GPU buffers (its gpu.Buffer, CuPy-backed)."""
    try:
        from zarr.core.buffer import gpu
    except ImportError:  # pragma: no cover - zarr-python always has the module
        return False
    return isinstance(prototype.buffer, type) and issubclass(prototype.buffer, gpu.Buffer)


def gpu_decoder_available() -> bool:
    """zarrgpu's GPU zstd decoder can run here: a CUDA build and a GPU."""
    return bool(_zarrgpu.built_with_cuda) and bool(_zarrgpu.cuda_available())


def _device_bytes(buffer: Any) -> Any:
    import cupy

    return cupy.ascontiguousarray(buffer.as_array_like()).reshape(-1).view(cupy.uint8)


def decode_zstd_frames(frames: list, sizes: list[int], keys: list[str]) -> list:
    """Decodes zstd frames held in CuPy uint8 arrays into new CuPy arrays of `sizes` bytes on
    the current device and stream, with zarrgpu's GPU decoder; complete on return."""
    import cupy

    out = [cupy.empty(n, dtype=cupy.uint8) for n in sizes]
    _zarrgpu.decode_zstd_on_device(
        cupy.cuda.Device().id,
        [int(f.data.ptr) for f in frames],
        [int(f.nbytes) for f in frames],
        [int(o.data.ptr) for o in out],
        list(sizes),
        keys,
        int(cupy.cuda.get_current_stream().ptr),
    )
    return out


def decode_on_device(chain: Any, encoded: list, keys: list[str]) -> list:
    """Decodes zarr-python GPU buffers through `chain` (a _zarrgpu.ChunkBatchCodec); returns
    flat CuPy uint8 arrays of chain.chunk_bytes each."""
    import cupy

    frames = [_device_bytes(b) for b in encoded]
    form = chain.device_form
    if form == "zstd" and gpu_decoder_available():
        return decode_zstd_frames(frames, [chain.chunk_bytes] * len(frames), keys)
    if form == "copy":
        return frames
    host_in = [cupy.asnumpy(f) for f in frames]
    host_out = np.empty((len(frames), chain.chunk_bytes), dtype=np.uint8)
    chain.decode(host_in, list(host_out), keys)
    device = cupy.asarray(host_out)
    return [device[i] for i in range(len(frames))]
