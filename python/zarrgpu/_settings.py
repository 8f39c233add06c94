"""The library's settings, the last read's report, and releasing pooled device memory.

    zarrgpu.config()                          # the settings in force (a Config)
    zarrgpu.set_config(io="posix")            # change some; returns the previous Config
    with zarrgpu.configured(zstd_decoder="cpu"):
        a.read(device="cuda")                 # the settings apply inside the block only
    zarrgpu.last_read_report()                # what the last read on this thread did

The environment (``ZARRGPU_THREADS``, ``ZARRGPU_IO``, ... : README.md) is read once,
at the first use; afterwards only ``set_config`` changes the settings. They are one
set per process, shared by every thread: ``configured`` suits scripts and tests, not
threads that want different settings at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

from . import _zarrgpu
from .errors import InvalidArgumentError

_IO_MODES = ("auto", "posix", "gds", "gds-compat")
_DECODERS = ("auto", "cpu", "gpu")


@dataclasses.dataclass(frozen=True)
class Config:
    """The settings (C++ ``zarrgpu::Config``). Sizes are in bytes.

    threads: host threads that read, decode and write chunks (0: one per core); fixed
        once the pool has started (the first read or write of the process).
    io: how device reads fetch stored bytes: "auto", "posix", "gds", "gds-compat".
    zstd_decoder: where zstd chunks decode on device reads: "auto", "cpu", "gpu".
    lz4_decoder, blosc_decoder: the same for numcodecs lz4 chunks and for blosc chunks
        (blosc frames of zlib, zstd or snappy streams decode on the CPU whatever it says).
    readahead_bytes: host reads: bytes of chunks fetched ahead of decoding (0: off).
    staging_bytes, staging_slots: device reads: the pinned staging ring (slots 0: the
        library chooses, 4 on GPUs of 32 GiB or more, else 3).
    scratch_bytes: device reads: decoded bytes per batch (0: twice staging_bytes).
    read_piece_bytes: device reads: the largest single read of a GPU-decoded chunk.
    keep_device_buffers: keep the staging ring and device buffers for the next read;
        False frees them after every read (see also release_device_memory()).
    memory_limit: the most bytes one allocation sized by the input (a decoded chunk, a
        read's output) may take; larger ones raise ResourceExhaustedError before they are
        made (0: the machine's memory, RAM plus swap or the process's limits if lower).
    """

    threads: int
    io: str
    zstd_decoder: str
    lz4_decoder: str
    blosc_decoder: str
    readahead_bytes: int
    staging_bytes: int
    staging_slots: int
    scratch_bytes: int
    read_piece_bytes: int
    keep_device_buffers: bool
    memory_limit: int


_FIELDS = {f.name: f for f in dataclasses.fields(Config)}


def config() -> Config:
    """The settings in force."""
    return Config(**_zarrgpu.config())


def _check(name: str, value: Any) -> None:
    if name not in _FIELDS:
        raise InvalidArgumentError(f"no setting named {name!r} (settings: {', '.join(_FIELDS)})")
    if name == "io":
        if value not in _IO_MODES:
            raise InvalidArgumentError(f"io must be one of {_IO_MODES}, got {value!r}")
    elif name in ("zstd_decoder", "lz4_decoder", "blosc_decoder"):
        if value not in _DECODERS:
            raise InvalidArgumentError(f"{name} must be one of {_DECODERS}, got {value!r}")
    elif name == "keep_device_buffers":
        if not isinstance(value, bool):
            raise InvalidArgumentError(f"keep_device_buffers must be True or False, got {value!r}")
    elif isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >= 2**64:
        raise InvalidArgumentError(f"{name} must be an integer >= 0, got {value!r}")
    elif name in ("threads", "staging_slots") and value >= 2**32:
        raise InvalidArgumentError(f"{name} must be below 2**32, got {value!r}")


def set_config(config: Config | None = None, /, **changes: Any) -> Config:
    """Replaces the settings with ``config`` and/or changes the named ones; returns the
    settings that were in force. Raises InvalidArgumentError for an unknown name or a
    value out of range, and then changes nothing."""
    previous = _current_or_defaults()
    fields = dataclasses.asdict(config) if config is not None else {}
    fields.update(changes)
    for name, value in fields.items():
        _check(name, value)
    _zarrgpu.set_config_fields(fields)
    return previous


def _current_or_defaults() -> Config | None:
    try:
        return config()
    except InvalidArgumentError:
        # The environment holds a value that does not parse: there is nothing to
        # restore but the settings set_config is about to give.
        return None


@contextlib.contextmanager
def configured(**changes: Any) -> Iterator[Config]:
    """Changes the named settings for the ``with`` block, then restores them."""
    previous = set_config(**changes)
    try:
        yield config()
    finally:
        if previous is not None:
            set_config(previous)


@dataclasses.dataclass(frozen=True)
class CodecReport:
    """One codec of the chain: chunks it decoded on CPU threads and on the GPU."""

    codec: str
    cpu_chunks: int
    gpu_chunks: int


@dataclasses.dataclass(frozen=True)
class ReadReport:
    """What a read did (C++ ``zarrgpu::ReadReport``).

    device: where the output is ("cpu", "cuda:0").
    io_path: how stored bytes came: "store" (host reads: the store's own reads); device
        reads: "posix" (pread into pinned staging), "gds" or "gds-compat" (cuFile).
    io_detail: why that path (device reads).
    store: the store's kind: "file", "memory", "http" (https too), "s3", "gs".
    requests, retries, bytes_fetched: what the store asked of its server while the read
        ran (HTTP and S3; 0 for local stores): requests sent (retries included), of
        those the repeats after a transient failure (5xx, timeout, reset), and response
        body bytes received (coalescing gaps and failed attempts included). A read of the
        same store on another thread at the same time counts in both reports.
    decoder_detail: device reads of a compressor with a GPU decoder (zstd, lz4, blosc): chunks
        it decoded on the GPU and on CPU threads, the rule that chose, and chunks the GPU
        handed back to CPU threads and why ("" otherwise).
    codecs: per codec of the chain (a sharded array's inner chain after sharding_indexed).
    chunks, missing_chunks: chunks (inner chunks) touched; of those, read as fill value.
    bytes_read, bytes_decoded, bytes_out: stored bytes fetched, decoded bytes, output bytes.
    seconds: wall time; seconds_read_threads, seconds_decode_threads: thread-seconds.
    """

    device: str
    io_path: str
    io_detail: str
    store: str
    requests: int
    retries: int
    bytes_fetched: int
    decoder_detail: str
    codecs: tuple[CodecReport, ...]
    chunks: int
    missing_chunks: int
    bytes_read: int
    bytes_decoded: int
    bytes_out: int
    seconds: float
    seconds_read_threads: float
    seconds_decode_threads: float


def last_read_report() -> ReadReport:
    """The report of the last read made on this thread (all zero before one)."""
    d = _zarrgpu.last_read_report()
    d["codecs"] = tuple(CodecReport(**c) for c in d["codecs"])
    return ReadReport(**d)


def release_device_memory() -> None:
    """Frees the pinned staging ring and the device buffers that device reads keep for
    the next read; the next device read allocates them again. Buffers of reads in
    flight are left to them. Does nothing in a build without CUDA."""
    _zarrgpu.release_device_memory()
