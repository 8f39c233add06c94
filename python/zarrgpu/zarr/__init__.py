"""zarrgpu inside zarr-python (issue 37).

- ``zarr.config.set({"codec_pipeline.path": "zarrgpu.zarr.CodecPipeline"})``: zarr-python
  arrays on any zarr-python store read and write their chunks in zarrgpu batches (GPU
  decode into GPU buffers after ``zarr.config.enable_gpu()``); see ``_pipeline.py``.
- ``zarr.config.set({"codecs.zstd": "zarrgpu.zarr.ZstdCodec"})``: the ``zstd`` codec with
  batched GPU decoding of GPU buffers by zarrgpu's decoder, libzstd on the CPU.

Both are registered with zarr-python (entry points, and on import) and change nothing until
selected: zarr-python's defaults stay in force.
"""

from __future__ import annotations

from zarr.registry import register_codec, register_pipeline

from ._by_path import read_routes
from ._pipeline import BATCH_BYTES, CodecPipeline, FallbackWarning
from ._zstd import ZstdCodec

# The names zarr-python's config selects by (its registry keys are module.qualname).
CodecPipeline.__module__ = __name__
ZstdCodec.__module__ = __name__
FallbackWarning.__module__ = __name__
register_pipeline(CodecPipeline)
register_codec("zstd", ZstdCodec)

__all__ = ["BATCH_BYTES", "CodecPipeline", "FallbackWarning", "ZstdCodec", "read_routes"]
