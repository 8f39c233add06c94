"""Row 3 of bench_zarr_python.py: a zarr-python ``zstd`` codec that decodes GPU batches with
nvCOMP's Python API (the nvidia-nvcomp-cu13 wheel), wired the way zarr-python pull request
#2863 proposes: the codec receives the pipeline's batch of GPU buffers and hands them to one
``nvcomp.Codec(algorithm="Zstd").decode`` call; encoding stays zarr-python's (CPU).
Selected with ``{"codecs.zstd": "nvcomp_zstd.NvcompZstdCodec"}`` after importing this module."""

from __future__ import annotations

import asyncio

from zarr.codecs.zstd import ZstdCodec
from zarr.registry import register_codec


class NvcompZstdCodec(ZstdCodec):
    """zarr-python's zstd codec; GPU batches decode with nvCOMP (host buffers: numcodecs)."""

    async def decode(self, chunk_bytes_and_specs):
        from zarr.core.buffer import gpu

        items = list(chunk_bytes_and_specs)
        present = [i for i, (b, _) in enumerate(items) if b is not None]
        if not present or not issubclass(items[present[0]][1].prototype.buffer, gpu.Buffer):
            return await super().decode(items)
        return await asyncio.to_thread(self._decode_gpu, items, present)

    def _decode_gpu(self, items, present):
        import cupy
        from nvidia import nvcomp

        codec = nvcomp.Codec(algorithm="Zstd", bitstream_kind=nvcomp.BitstreamKind.RAW)
        frames = [cupy.ascontiguousarray(items[i][0].as_array_like()).view(cupy.uint8) for i in present]
        decoded = codec.decode(nvcomp.as_arrays(frames))
        cupy.cuda.get_current_stream().synchronize()
        out = [None] * len(items)
        for i, d in zip(present, decoded):
            out[i] = items[i][1].prototype.buffer.from_array_like(cupy.asarray(d).view(cupy.uint8).reshape(-1))
        return out


register_codec("zstd", NvcompZstdCodec)
