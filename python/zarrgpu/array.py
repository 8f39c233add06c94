"""zarrgpu.Array: a Zarr array with NumPy-style reads onto the host or a GPU."""

from __future__ import annotations

import concurrent.futures
import json
import os
import threading
from typing import Any

import numpy as np

from . import _zarrgpu
from ._node import Node
from ._device import Device, describe_cuda_array_interface, describe_dlpack, parse_device, stream_handle, to_host
from ._dtypes import VARIABLE_LENGTH, array_dtype, is_numeric
from ._indexing import normalize_key
from ._metadata import fill_value as _fill_value
from ._metadata import inner_chunk_shape
from .errors import InvalidArgumentError, ReadOnlyError, UnsupportedError

def _bytes(a: np.ndarray) -> np.ndarray:
    """A flat uint8 view of a C-contiguous array: the core takes bytes, so any dtype
    (bfloat16 from ml_dtypes included, which DLPack/buffer exports cannot name) passes."""
    return a.reshape(-1).view(np.uint8)


_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    """A small shared pool for read_async: reads release the GIL, so a few threads overlap I/O."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(
                max_workers=min(4, os.cpu_count() or 1), thread_name_prefix="zarrgpu-read"
            )
        return _pool


class Array(Node):
    """An array in a Zarr store (format 2 or 3). Open with :func:`zarrgpu.open`.

    ``a[...]`` reads to a NumPy array; ``a.read(sel, device="cuda")`` reads to a
    :class:`zarrgpu.DeviceArray` in GPU memory; ``a[sel] = values`` writes.
    """

    def __init__(self, core: _zarrgpu.Array, url: str, mode: str = "r"):
        self._core = core
        self._url = url
        self._mode = mode
        self._meta = core.metadata
        self._dtype = array_dtype(self._meta)
        self._variable_length = self._meta["data_type"] in VARIABLE_LENGTH

    # ---- metadata ------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._meta["shape"])

    @property
    def ndim(self) -> int:
        return len(self._meta["shape"])

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def zarr_dtype(self) -> str:
        """The Zarr v3 data type name ("float32", "bfloat16", "string", "fixed_length_utf32", ...);
        the parameters of the parametrised types are in ``metadata["data_type_json"]``."""
        return self._meta["data_type"]

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def chunks(self) -> tuple[int, ...]:
        """The read chunk shape: the inner chunks of a sharded array (as zarr-python's .chunks)."""
        return inner_chunk_shape(self._meta) or tuple(self._meta["chunk_shape"])

    @property
    def shards(self) -> tuple[int, ...] | None:
        """The shard shape of a sharded array, else None (as zarr-python's .shards)."""
        return tuple(self._meta["chunk_shape"]) if inner_chunk_shape(self._meta) else None

    @property
    def codecs(self) -> list[dict]:
        """The format 3 codec chain (format 2 arrays: the equivalent chain) as dicts."""
        return [dict(c) for c in self._meta["codecs"]]

    @property
    def compressor(self) -> dict | None:
        """Format 2: the .zarray compressor; format 3: None (see codecs)."""
        return (self._meta.get("v2") or {}).get("compressor")

    @property
    def filters(self) -> list | None:
        """Format 2: the .zarray filters; format 3: None (see codecs)."""
        return (self._meta.get("v2") or {}).get("filters")

    @property
    def order(self) -> str:
        return (self._meta.get("v2") or {}).get("order", "C")

    @property
    def dimension_names(self) -> tuple[str | None, ...] | None:
        names = self._meta["dimension_names"]
        return tuple(names) if names is not None else None

    @property
    def fill_value(self) -> Any:
        """A NumPy scalar of the array's dtype; None for a format 2 ``null`` fill value."""
        return _fill_value(self._meta["fill_value"], self._meta["data_type"], self._dtype)

    @property
    def basename(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def store(self) -> str:
        return self._url

    @property
    def metadata(self) -> dict:
        """The metadata document (as the C++ core describes it)."""
        return json.loads(json.dumps(self._meta))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __reduce__(self):
        # Pickles as its location and mode, as zarr-python and xarray's stores do: the
        # receiving process (dask worker, DataLoader worker started with spawn) re-opens it.
        return _reopen_array, (self._url, self.path, self._mode)

    def __repr__(self) -> str:
        return (f"<zarrgpu.Array {self._url}{'/' + self.path if self.path else ''} shape={self.shape} "
                f"dtype={self._dtype} chunks={self.chunks} zarr_format={self.zarr_format}>")

    # ---- reads -----------------------------------------------------------------
    def __getitem__(self, key: Any) -> np.ndarray:
        if key is None:  # read(None) means "everything"; a[None] is np.newaxis
            normalize_key((None,), self.shape)
        normalize_key(key, self.shape)  # NumPy semantics: refuses keys where orthogonal indexing differs
        return self.read(key)

    @property
    def oindex(self) -> "_OrthogonalIndexer":
        """``a.oindex[key]``: orthogonal indexing (as zarr-python's), to a NumPy array; lists of
        positions in any number of dimensions, each indexed independently. Same as ``a.read(key)``."""
        return _OrthogonalIndexer(self)

    def __array__(self, dtype=None, copy=None):
        out = self.read()
        return out if dtype is None else out.astype(dtype, copy=False)

    def read(self, selection: Any = None, device: Any = "cpu", stream: Any = None, out: Any = None,
             threads: int = 0, verify_checksums: bool = True, device_memory_limit: int = 0):
        """Reads ``selection`` (ints, slices, Ellipsis, 1-D integer lists; None = all).

        Lists index orthogonally (zarr-python's ``oindex``): ``a.read(([3, 1, 3], slice(None), [0, 5]))``
        has shape ``(3, n1, 2)``; positions in any order, repeats and negatives allowed, the result
        in the list's order. Sorted lists without repeats read each chunk they touch once (in one
        batched read, on the GPU too); other lists may read a chunk once per run of the list
        (a run: evenly spaced positions inside one chunk).

        - ``device="cpu"``: a NumPy array (read straight into its memory, no copy).
        - ``device="cuda"`` / ``"cuda:N"``: a :class:`zarrgpu.DeviceArray`.
        - ``out=``: a NumPy array, or a device buffer with ``__cuda_array_interface__`` or
          ``__dlpack__`` (CuPy, PyTorch, ...) of the selection's shape and dtype,
          C-contiguous; returns ``out``.
        - ``stream``: a CUDA stream (int handle, CuPy or PyTorch stream). Given, the read is
          enqueued on it and left asynchronous (consumers of the DeviceArray are ordered after
          it through DLPack / the CUDA array interface); not given, the read uses its own
          stream and is complete on return.
        """
        dims, shape = normalize_key(Ellipsis if selection is None else selection, self.shape, orthogonal=True)
        dev = parse_device(device)
        if dev.kind != "cpu" and not is_numeric(self.zarr_dtype):
            raise UnsupportedError(
                f"array {self.name} in {self._url} has data type {self.zarr_dtype}, which cannot be read to a "
                "device (only booleans and numbers can); read it with device='cpu'"
            )
        if self._variable_length:
            if out is not None:
                raise InvalidArgumentError(f"out= needs fixed-size elements; array {self.name} has data type "
                                           f"{self.zarr_dtype}")
            values = self._core.read_variable_length(dims, threads=threads)
            return np.array(values, dtype=self._dtype).reshape(shape)
        if out is not None:
            return self._read_into(dims, shape, out, device, stream, threads, verify_checksums,
                                   device_memory_limit)
        if dev.kind == "cpu":
            self._core.check_output_size(dims)
            result = np.empty(shape, dtype=self._dtype)
            self._core.read_into(dims, _bytes(result), threads=threads, verify_checksums=verify_checksums)
            return result
        return self._core.read_device(dims, device=dev.index, stream=stream_handle(stream), threads=threads,
                                      verify_checksums=verify_checksums, device_memory_limit=device_memory_limit)

    def read_async(self, selection: Any = None, device: Any = "cpu", stream: Any = None, out: Any = None,
                   threads: int = 0, verify_checksums: bool = True) -> concurrent.futures.Future:
        """Like :meth:`read`, on a small thread pool; returns a concurrent.futures.Future.

        The selection is checked now, so indexing errors raise here rather than from the Future.
        """
        normalize_key(Ellipsis if selection is None else selection, self.shape, orthogonal=True)
        return _executor().submit(self.read, selection, device, stream, out, threads, verify_checksums)

    def _read_into(self, dims, shape, out, device, stream, threads, verify_checksums, device_memory_limit=0):
        if isinstance(out, np.ndarray):
            self._check_out(shape, out.shape, out.dtype)
            if not out.flags.c_contiguous or not out.flags.writeable:
                raise InvalidArgumentError("out= must be a writeable C-contiguous array")
            self._core.read_into(dims, _bytes(out), threads=threads, verify_checksums=verify_checksums)
            return out
        user_stream = stream_handle(stream)
        buf = None
        if hasattr(out, "__cuda_array_interface__"):
            try:
                buf = describe_cuda_array_interface(out)
            except AttributeError:
                buf = None
        if buf is None and hasattr(out, "__dlpack__"):
            buf = describe_dlpack(out, consumer_stream=user_stream)
            if buf.dl_code_bits is not None and self.zarr_dtype == "bfloat16":
                if buf.dl_code_bits != (4, 16):
                    raise InvalidArgumentError(f"out= has DLPack type {buf.dl_code_bits}, the array is bfloat16")
                buf.dtype = self._dtype
        if buf is None:
            raise InvalidArgumentError(
                f"out= must be a NumPy array or have __cuda_array_interface__ / __dlpack__, got {type(out).__name__}"
            )
        if buf.readonly:
            raise InvalidArgumentError("out= is read-only")
        self._check_out(shape, buf.shape, buf.dtype)
        nbytes = self.itemsize * int(np.prod(shape, dtype=np.int64))
        if buf.device.kind == "cpu":
            host = np.from_dlpack(out) if not isinstance(out, np.ndarray) else out
            self._core.read_into(dims, _bytes(host), threads=threads, verify_checksums=verify_checksums)
            return out
        if parse_device(device).kind == "cuda" and parse_device(device).index != buf.device.index:
            raise InvalidArgumentError(f"out= is on cuda:{buf.device.index}, device= says {device}")
        if user_stream is not None:
            self._core.read_into_device(dims, buf.ptr, nbytes, device=buf.device.index, stream=user_stream,
                                        threads=threads, verify_checksums=verify_checksums,
                                        device_memory_limit=device_memory_limit)
            return out
        # No stream given: order the read after the producer's pending work (its CAI stream,
        # or the legacy default stream a DLPack producer was asked to sync with) and finish it.
        order_after = buf.stream
        if order_after is None:
            self._core.read_into_device(dims, buf.ptr, nbytes, device=buf.device.index, stream=None,
                                        threads=threads, verify_checksums=verify_checksums,
                                        device_memory_limit=device_memory_limit)
        else:
            self._core.read_into_device(dims, buf.ptr, nbytes, device=buf.device.index, stream=int(order_after),
                                        threads=threads, verify_checksums=verify_checksums,
                                        device_memory_limit=device_memory_limit)
            _zarrgpu._synchronize_stream(int(order_after), buf.device.index)
        return out

    def _check_out(self, want_shape, got_shape, got_dtype):
        if tuple(got_shape) != tuple(want_shape):
            raise InvalidArgumentError(f"out= has shape {tuple(got_shape)}, the selection has shape {tuple(want_shape)}")
        if got_dtype is None or np.dtype(got_dtype) != self._dtype:
            raise InvalidArgumentError(f"out= has dtype {got_dtype}, the array has dtype {self._dtype}")

    # ---- writes ----------------------------------------------------------------
    def _check_writable(self, what: str) -> None:
        if self.read_only:
            raise ReadOnlyError(f"array {self.name} in {self._url} was opened with mode='r'; open it with mode='r+' to {what}")

    def resize(self, *shape: Any) -> None:
        """Changes the shape (same number of dimensions), as zarr-python's ``resize``: the
        metadata (and consolidated metadata) is rewritten, chunks wholly outside the new shape
        are erased, and a grown region reads as the fill value."""
        self._check_writable("resize it")
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = tuple(shape[0])
        new_shape = [int(n) for n in shape]
        if any(n < 0 for n in new_shape):
            raise InvalidArgumentError(f"resize to a negative extent: {tuple(new_shape)}")
        self._core.resize(new_shape)
        self._meta = self._core.metadata

    def append(self, data: Any, axis: int = 0) -> tuple[int, ...]:
        """Writes ``data`` after the end of ``axis`` (the array grows by ``data.shape[axis]``),
        as zarr-python's ``append``; returns the new shape. The chunk or shard holding the old
        end is read, completed and written again."""
        self._check_writable("append to it")
        host = to_host(data)
        if host.dtype != self._dtype:
            host = host.astype(self._dtype)
        host = np.ascontiguousarray(host)
        if host.ndim != self.ndim:
            raise InvalidArgumentError(f"appended data has {host.ndim} dimensions; the array has {self.ndim}")
        if not -self.ndim <= axis < self.ndim:
            raise InvalidArgumentError(f"axis {axis} is out of range for a {self.ndim}-d array")
        axis %= self.ndim
        shape = self._core.append(_bytes(host), list(host.shape), axis)
        self._meta = self._core.metadata
        return tuple(shape)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.write(key, value)

    def write(self, selection: Any, value: Any, threads: int = 0, write_empty_chunks: bool = False) -> None:
        """Writes ``value`` (broadcast to the selection's shape) into ``selection``.

        Device arrays (DeviceArray, CuPy, PyTorch, anything with __cuda_array_interface__ or
        __dlpack__) are copied to the host first; encoding runs on CPU threads.
        """
        self._check_writable("write")
        dims, shape = normalize_key(Ellipsis if selection is None else selection, self.shape)
        if self._variable_length:
            values = np.broadcast_to(np.asarray(value, dtype=object), shape).reshape(-1).tolist()
            if self.zarr_dtype == "string":
                values = [v if isinstance(v, str) else str(v) for v in values]
            self._core.write_variable_length(dims, values, threads=threads, write_empty_chunks=write_empty_chunks)
            return
        host = to_host(value)
        if host.dtype != self._dtype:
            host = host.astype(self._dtype)
        data = np.ascontiguousarray(np.broadcast_to(host, shape))
        self._core.write(dims, _bytes(data), threads=threads, write_empty_chunks=write_empty_chunks)


class _OrthogonalIndexer:
    """``Array.oindex``: ``a.oindex[key]`` reads ``key`` with orthogonal semantics."""

    def __init__(self, array: Array):
        self._array = array

    def __getitem__(self, key: Any) -> np.ndarray:
        return self._array.read(key)


def _reopen_array(url: str, path: str, mode: str) -> Array:
    """Unpickles an Array: opens it again from its store (metadata as the store has it now)."""
    return Array(_zarrgpu.Array.open(url, path), url, mode)
