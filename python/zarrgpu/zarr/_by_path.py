"""Reads of zarr-python arrays whose chunks are files zarrgpu can open itself, handed to
zarrgpu's own read pipeline by path (as zarrs-python reads its filesystem stores).

zarr-python gives a codec pipeline one request as a list of chunks, each with its store
key, the part of the chunk it reads and where that part goes in the output. For basic,
orthogonal and block indexing those parts are the product of one selection per dimension,
so the request is one zarrgpu selection: the store's directory, the array's path and that
selection go to zarrgpu's C++ read in a single call, which reads the files (pread, or cuFile
into device memory), decodes (GPU for GPU outputs) and places every chunk straight into
zarr-python's output buffer; missing chunks and shards read as the fill value, sharded
arrays read only the inner chunks the request touches.

Anything else returns None, and the pipeline reads the request through the store as before:
stores other than zarr-python's LocalStore (and KvikIO's GDSStore, which reads the same
files), coordinate/mask indexing, outputs that are not C-contiguous numbers or booleans in
native byte order, chunk key encodings other than zarr's two, arrays zarrgpu cannot open,
and arrays whose metadata on disk disagrees with the metadata zarr-python holds.
"""

from __future__ import annotations

import atexit
import json
import math
import os
import threading
from collections import Counter
from typing import Any

import numpy as np

from .. import _zarrgpu
from ..errors import ZarrgpuError

# How each read of an array with a store was served: "by_path" (zarrgpu read the files),
# "through_store" (zarr-python's store fetched the chunks). read_routes() returns a copy.
_ROUTES: Counter = Counter()


def read_routes() -> dict[str, int]:
    """How many reads of zarr-python arrays went by path and how many through the store."""
    return dict(_ROUTES)


def count_route(route: str) -> None:
    _ROUTES[route] += 1


def _store_directory(store: Any) -> str | None:
    """The directory behind `store` when zarrgpu can read its keys as files: zarr-python's
    LocalStore (read-only or not), a subclass that reads keys the same way, or KvikIO's
    GDSStore (a LocalStore reading the same files through cuFile)."""
    try:
        from zarr.storage import LocalStore
    except ImportError:  # pragma: no cover - zarr-python 3 always has it
        return None
    if not isinstance(store, LocalStore):
        return None
    kind = type(store)
    same_reads = kind.get is LocalStore.get and kind.get_partial_values is LocalStore.get_partial_values
    if not (same_reads or kind.__module__.startswith("kvikio.zarr")):
        return None
    return os.fspath(store.root)


class _Keys:
    """Chunk keys of one array -> (array path, chunk coordinates), for zarr's two chunk key
    encodings (v3 default "c/0/1", v2 "0.1" or "0/1")."""

    def __init__(self, metadata: Any, ndim: int):
        if metadata.zarr_format == 2:
            self.separator, self.c_prefix = metadata.dimension_separator, False
        else:
            encoding = metadata.chunk_key_encoding
            if encoding.name not in ("default", "v2"):
                raise ValueError(f"chunk key encoding {encoding.name!r}")
            self.separator, self.c_prefix = encoding.separator, encoding.name == "default"
        self.encode = metadata.encode_chunk_key
        self.ndim = ndim
        # Path components of a key: all of them with the "/" separator, else one.
        self.components = 1 if ndim == 0 or self.separator != "/" else ndim + self.c_prefix

    def split(self, path: str, verify: bool) -> tuple[str, tuple[int, ...]] | None:
        """(array path, coordinates) of a chunk's store path; `verify`: check that the key is
        exactly what the metadata encodes for those coordinates (once per request suffices:
        zarr-python encodes every key of a request with the same metadata)."""
        parts = path.rsplit("/", self.components)
        if len(parts) < self.components:
            return None
        if len(parts) > self.components:
            prefix, key = parts[0], "/".join(parts[1:])
        else:
            prefix, key = "", "/".join(parts)
        tokens = key.split(self.separator)
        if self.c_prefix:
            tokens = tokens[1:]
        try:
            coords = tuple(map(int, tokens)) if self.ndim else ()
        except ValueError:
            return None
        if len(coords) != self.ndim or (verify and self.encode(coords) != key):
            return None
        return prefix, coords


def _positions_in_chunk(sel: Any, extent: int) -> np.ndarray | range | None:
    if isinstance(sel, slice):
        return range(*sel.indices(extent))
    if isinstance(sel, np.ndarray) and sel.dtype.kind in "iu":
        return sel.reshape(-1)
    return None


def _positions_in_output(sel: Any) -> np.ndarray | range | None:
    if isinstance(sel, slice):
        if sel.start is None or sel.stop is None or sel.step not in (None, 1):
            return None
        return range(sel.start, sel.stop)
    if isinstance(sel, np.ndarray) and sel.dtype.kind in "iu":
        return sel.reshape(-1)
    return None


def _dimension_argument(positions: np.ndarray) -> Any:
    """One dimension of the zarrgpu selection: a slice tuple when the positions are an
    increasing arithmetic progression, else the positions (1-D int64)."""
    first = int(positions[0])
    if len(positions) == 1:
        return (first, first + 1, 1, False)
    steps = np.diff(positions)
    step = int(steps[0])
    if step > 0 and bool((steps == step).all()):
        return (first, int(positions[-1]) + 1, step, False)
    return np.ascontiguousarray(positions, dtype=np.int64)


def request_selection(items: list, keys: _Keys, out_shape: tuple, drop_axes: tuple) -> tuple[str, list] | None:
    """The array path and the zarrgpu selection equal to zarr-python's request `items`
    ((store path, chunk spec, chunk selection, out selection, complete) per chunk), or None
    when the request is not one selection per dimension."""
    ndim = keys.ndim
    chunk_shape = tuple(items[0][1].shape)
    maps: list[np.ndarray | None] = [None] * ndim  # output position -> array position, kept dims
    dropped: list[int | None] = [None] * ndim  # the array position of dims the output drops
    seen: list[set] = [set() for _ in range(ndim)]
    array_path = None
    for store_path, spec, chunk_sel, out_sel, _ in items:
        split = keys.split(store_path.path, verify=array_path is None)
        if split is None or tuple(spec.shape) != chunk_shape:
            return None
        path, coords = split
        if array_path is None:
            array_path = path
        elif path != array_path:
            return None
        if not isinstance(chunk_sel, tuple) or len(chunk_sel) != ndim or not isinstance(out_sel, tuple):
            return None
        k = 0
        for d in range(ndim):
            sel = chunk_sel[d]
            is_int = isinstance(sel, (int, np.integer)) and not isinstance(sel, bool)
            drop = is_int or d in drop_axes
            out_d = None
            if not drop:
                if k >= len(out_sel):
                    return None
                out_d = out_sel[k]
                k += 1
            if coords[d] in seen[d]:
                continue  # a product: this dimension's part of the chunk was mapped already
            seen[d].add(coords[d])
            origin = coords[d] * chunk_shape[d]
            inside = [int(sel)] if is_int else _positions_in_chunk(sel, chunk_shape[d])
            if inside is None:
                return None
            if drop:
                if len(inside) != 1 or dropped[d] is not None:
                    return None
                dropped[d] = origin + int(inside[0])
                continue
            outside = _positions_in_output(out_d)
            if outside is None or len(outside) != len(inside) or k - 1 >= len(out_shape):
                return None
            if maps[d] is None:
                maps[d] = np.full(out_shape[k - 1], -1, dtype=np.int64)
            if isinstance(outside, range) and isinstance(inside, range):
                if outside.stop > len(maps[d]):
                    return None
                maps[d][outside.start:outside.stop] = np.arange(origin + inside.start, origin + inside.stop, inside.step)
                continue
            try:
                maps[d][np.asarray(outside)] = origin + np.asarray(inside, dtype=np.int64)
            except IndexError:
                return None
        if k != len(out_sel):
            return None
    kept = [d for d in range(ndim) if dropped[d] is None]
    if len(kept) != len(out_shape) or len(items) != math.prod(len(s) for s in seen):
        return None
    selection: list = []
    for d in range(ndim):
        if dropped[d] is not None:
            selection.append((dropped[d], None, None, True))
            continue
        m = maps[d]
        if m is None or len(m) == 0 or int(m.min()) < 0:  # an output position no chunk fills
            return None
        selection.append(_dimension_argument(m))
    return array_path or "", selection


# zarrgpu arrays opened for zarr-python arrays: (directory, array path, metadata document)
# -> (the opened array, its shape), or None when zarrgpu cannot read it as zarr-python does.
_OPENED: dict[tuple[str, str, str], Any] = {}
_OPENED_LOCK = threading.Lock()
# The opened arrays are C++ objects: free them before the extension module goes away at exit.
atexit.register(_OPENED.clear)


def _agrees(described: dict, metadata: Any, chunk_shape: tuple) -> bool:
    """Whether the array zarrgpu opened from the files is laid out as the one zarr-python holds
    (chunk or shard shape, data type, format). The shape may differ: zarr-python does not
    rebuild a pipeline when an array is resized (its reads stay inside either shape)."""
    dtype = metadata.dtype if metadata.zarr_format == 2 else metadata.data_type
    return (len(described["shape"]) == len(metadata.shape)
            and tuple(described["chunk_shape"]) == chunk_shape
            and described["zarr_format"] == metadata.zarr_format
            and np.dtype(described["numpy_dtype"]) == dtype.to_native_dtype())


def _open(directory: str, array_path: str, metadata: Any, chunk_shape: tuple) -> Any:
    try:
        opened = _zarrgpu.Array.open(directory, array_path)
        described = opened.metadata
    except (ZarrgpuError, NotImplementedError, ValueError, OSError):
        return None  # not an array zarrgpu reads: the store route decides (and warns) as before
    if not _agrees(described, metadata, chunk_shape):
        return None
    return opened, tuple(described["shape"]), np.dtype(described["numpy_dtype"])


def _inside(selection: list, shape: tuple) -> bool:
    for dim, extent in zip(selection, shape, strict=True):
        last = int(dim.max()) if isinstance(dim, np.ndarray) else (dim[0] if dim[3] else dim[1] - 1)
        if last >= extent:
            return False
    return True


def open_for(directory: str, array_path: str, metadata: Any, document: str, chunk_shape: tuple,
             selection: list) -> Any:
    """(zarrgpu array, its data type) for a read of `selection`, or None. Opened once per
    zarr-python metadata; opened again when the selection reaches past the shape it had then
    (the array grew)."""
    key = (directory, array_path, document)
    with _OPENED_LOCK:
        entry = _OPENED.get(key, False)
    if entry is False or (entry is not None and not _inside(selection, entry[1])):
        entry = _open(directory, array_path, metadata, chunk_shape)
        with _OPENED_LOCK:
            if len(_OPENED) > 256:
                _OPENED.clear()
            _OPENED[key] = entry
    if entry is None or not _inside(selection, entry[1]):
        return None
    return entry[0], entry[2]


class ByPathReader:
    """The by-path route of one zarr-python array (its metadata and store)."""

    def __init__(self, metadata: Any, store: Any):
        self.metadata = metadata
        self.directory = _store_directory(store)
        if self.directory is None:
            return
        try:
            self.keys = _Keys(metadata, len(metadata.shape))
            self.document = json.dumps(metadata.to_dict(), sort_keys=True, default=str)
        except (ValueError, TypeError, AttributeError):  # a key encoding or metadata of another kind
            self.directory = None

    @property
    def usable(self) -> bool:
        return self.directory is not None

    def plan(self, items: list, out: Any, drop_axes: tuple) -> tuple[Any, list, Any] | None:
        """(zarrgpu array, selection, output array) for a request it can take, else None."""
        if not items or self.directory is None:
            return None
        array = out.as_ndarray_like()
        dtype = getattr(array, "dtype", None)
        flags = getattr(array, "flags", None)
        if (dtype is None or flags is None or dtype.kind not in "biufc" or not dtype.isnative
                or not flags.c_contiguous):
            return None
        on_device = not isinstance(array, np.ndarray)
        if on_device and not (hasattr(array, "__cuda_array_interface__") and _zarrgpu.built_with_cuda
                              and _zarrgpu.cuda_available()):
            return None
        if not on_device and not flags.writeable:
            return None
        try:
            request = request_selection(items, self.keys, tuple(array.shape), tuple(drop_axes))
        except (AttributeError, TypeError, ValueError):  # getters or selections of another kind
            return None
        if request is None:
            return None
        array_path, selection = request
        chunk_shape = tuple(items[0][1].shape)
        opened = open_for(self.directory, array_path, self.metadata, self.document, chunk_shape, selection)
        if opened is None or opened[1] != dtype:
            return None
        return opened[0], selection, array


def read_planned(opened: Any, selection: list, array: Any) -> None:
    """Runs one planned read (in a worker thread: the C++ read releases the GIL)."""
    if isinstance(array, np.ndarray):
        opened.read_into(selection, array.reshape(-1).view(np.uint8))
        return
    import cupy

    # zarr-python allocated the output on the legacy stream (its event loop's thread has no
    # stream of its own): finish that, then read on a stream of zarrgpu's, synchronized on return.
    device = int(array.device.id)
    with cupy.cuda.Device(device):
        cupy.cuda.Stream.null.synchronize()
    opened.read_into_device(selection, int(array.data.ptr), int(array.nbytes), device, None)
