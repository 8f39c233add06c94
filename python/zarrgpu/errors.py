"""Exception classes, one per C++ ``zarrgpu::ErrorKind``.

Every error raised from the C++ core is a :class:`ZarrgpuError` whose message is
the C++ error's (cause plus context: array, chunk key or metadata document, codec,
store) and whose attributes ``kind``, ``cause``, ``array``, ``chunk_key``,
``document``, ``codec`` and ``store`` carry the fields. Each class also derives from the closest builtin exception,
so ``except KeyError`` / ``except ValueError`` code keeps working.
"""

from __future__ import annotations


class ZarrgpuError(Exception):
    """Base class of every zarrgpu error."""

    kind: str = "internal"
    cause: str = ""
    array: str = ""
    chunk_key: str = ""
    document: str = ""  # the store key of a metadata document ("a/zarr.json")
    codec: str = ""
    store: str = ""

    def __str__(self) -> str:
        # KeyError would quote the message; keep it readable for every subclass.
        return str(self.args[0]) if self.args else ""


class InvalidArgumentError(ZarrgpuError, ValueError):
    """A bad selection, option or argument."""


class BoundsError(ZarrgpuError, IndexError):
    """A selection outside the array (NumPy raises IndexError here too)."""


class NotFoundError(ZarrgpuError, FileNotFoundError, KeyError):
    """Missing metadata, store or path."""


class InvalidMetadataError(ZarrgpuError, ValueError):
    """Bad JSON, wrong fields, inconsistent metadata."""


class UnsupportedError(ZarrgpuError, NotImplementedError):
    """A codec, data type or extension zarrgpu does not implement."""


class CorruptDataError(ZarrgpuError):
    """A chunk that does not decode, fails a checksum or has the wrong size."""


class StorageError(ZarrgpuError, OSError):
    """The store failed to read or write."""


class DeviceError(ZarrgpuError, RuntimeError):
    """CUDA / GPU failures, out of GPU memory, or no CUDA path in this build."""


class InternalError(ZarrgpuError, RuntimeError):
    """A bug in zarrgpu."""


class ResourceExhaustedError(ZarrgpuError, MemoryError):
    """An allocation the metadata or a selection asks for (a chunk's decoded bytes, a
    read's output) exceeds the memory limit (``memory_limit`` setting,
    ``ZARRGPU_MEMORY_LIMIT``; by default the machine's memory), or failed for want of
    memory. Raised before the allocation is attempted where its size is known."""


__all__ = [
    "ZarrgpuError",
    "InvalidArgumentError",
    "BoundsError",
    "NotFoundError",
    "InvalidMetadataError",
    "UnsupportedError",
    "CorruptDataError",
    "StorageError",
    "DeviceError",
    "InternalError",
    "ResourceExhaustedError",
]


class ReadOnlyError(ZarrgpuError, PermissionError):
    """A write to an array or group opened with mode='r'."""


__all__.append("ReadOnlyError")
