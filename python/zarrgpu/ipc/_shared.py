"""Shared arrays: descriptors and the memory they name (docs/ipc.md)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .. import _zarrgpu
from .._zarrgpu import DeviceArray

DESCRIPTOR_VERSION: int = _zarrgpu.ipc_descriptor_version()


def _dtype_name(dtype: Any) -> str:
    """The project's data type name ("float32") of a NumPy dtype or name."""
    if isinstance(dtype, str) and dtype == "bfloat16":
        return dtype
    try:
        d = np.dtype(dtype)
    except TypeError:
        if isinstance(dtype, str):
            return dtype  # not NumPy's: whoever reads it refuses it by name
        raise
    if d.name == "bfloat16":
        return "bfloat16"
    return {"b": "bool"}.get(d.kind, d.name)


def validate(descriptor: str | bytes | dict) -> dict:
    """The descriptor as a dict, after every check an import makes."""
    return json.loads(_zarrgpu.ipc_validate(_text(descriptor)))


def _text(descriptor: str | bytes | dict) -> str:
    if isinstance(descriptor, dict):
        return json.dumps(descriptor)
    if isinstance(descriptor, bytes):
        return descriptor.decode("utf-8", "backslashreplace")
    return descriptor


class SharedArray:
    """An array in shareable memory: created here (:func:`empty`) or opened
    from a descriptor (:func:`open`). Host arrays convert with ``numpy.asarray``;
    every array offers ``__dlpack__`` and device arrays ``__cuda_array_interface__``.
    The memory stays mapped while this object or any view of it lives."""

    def __init__(self, memory: Any, descriptor: str):
        self._memory = memory
        self.descriptor: str = descriptor
        self._fields = json.loads(descriptor)
        self._view = memory.view(descriptor)

    # -- what it is --------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._fields["shape"])

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(self._fields["strides"])

    @property
    def dtype(self) -> str:
        return self._fields["data_type"]

    @property
    def device(self) -> str:
        dev = self._fields["device"]
        return "cpu" if dev["type"] == "cpu" else f"cuda:{dev['index']}"

    @property
    def fd(self) -> int | None:
        """The file descriptor to pass beside the descriptor (memfd and fd
        handles); owned by this object. None for cuda_ipc handles."""
        fd = self._memory.fd
        return None if fd < 0 else fd

    @property
    def read_only(self) -> bool:
        return bool(self._fields["read_only"])

    # -- views and slices --------------------------------------------------
    def __getitem__(self, key: Any) -> "SharedArray":
        """A basic-indexing view (integers and slices): same allocation, new
        offset, shape and strides, as NumPy computes them."""
        if self.dtype == "bfloat16":
            probe = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint16), self.shape, self.strides)
        else:
            probe = np.lib.stride_tricks.as_strided(np.zeros(1, np.dtype(self._fields["typestr"])), self.shape, self.strides)
        key = key if isinstance(key, tuple) else (key,)
        # A trailing Ellipsis keeps integer indexing a 0-d view: nothing is read.
        sub = probe[key if any(k is Ellipsis for k in key) else key + (Ellipsis,)]
        start = sub.__array_interface__["data"][0] - probe.__array_interface__["data"][0]
        desc = self._memory.describe(self.dtype, list(sub.shape), self._fields["byte_offset"] + start, list(sub.strides))
        return SharedArray(self._memory, _keep_read_only(desc, self.read_only))

    def _extent(self) -> tuple[int, int]:
        """(first byte, byte count) of the allocation the view touches."""
        f = self._fields
        item = 2 if f["typestr"] == "bfloat16" else np.dtype(f["typestr"]).itemsize
        if 0 in f["shape"]:
            return f["byte_offset"], 0
        below = sum((n - 1) * -s for n, s in zip(f["shape"], f["strides"]) if s < 0)
        above = sum((n - 1) * s for n, s in zip(f["shape"], f["strides"]) if s > 0)
        return f["byte_offset"] - below, below + above + item

    def get(self) -> np.ndarray:
        """A host copy as a NumPy array (C order), host or device memory."""
        f = self._fields
        if f["typestr"] == "bfloat16":
            import ml_dtypes

            dtype = np.dtype(ml_dtypes.bfloat16)
        else:
            dtype = np.dtype(f["typestr"])
        first, n = self._extent()
        raw = bytearray(self._memory.read(first, n)) if n else bytearray(dtype.itemsize)
        view = np.ndarray(tuple(f["shape"]), dtype, buffer=raw, offset=f["byte_offset"] - first, strides=tuple(f["strides"]))
        return np.ascontiguousarray(view)

    def set(self, values: Any) -> None:
        """Writes a host array (this view's shape) into C-contiguous shared memory."""
        f = self._fields
        item = 2 if f["typestr"] == "bfloat16" else np.dtype(f["typestr"]).itemsize
        if not _contiguous(f["shape"], f["strides"], item):
            raise ValueError("set(): the view is not C-contiguous")
        data = np.ascontiguousarray(values)
        if data.shape != self.shape or data.itemsize != item:
            raise ValueError(f"set(): expected shape {self.shape} of {self.dtype}, got {data.shape} {data.dtype}")
        self._memory.write(f["byte_offset"], data.tobytes())

    # -- protocols ---------------------------------------------------------
    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._view.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._view.__dlpack_device__()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if self._fields["memory"] != "host":
            raise TypeError("device memory: use DLPack (torch.from_dlpack, cupy.from_dlpack) or copy it to the host first")
        if self.dtype == "bfloat16":
            import ml_dtypes

            raw = np.from_dlpack(_as_uint16(self))
            a = raw.view(ml_dtypes.bfloat16)
        else:
            a = np.from_dlpack(self._view)
        if dtype is not None:
            a = a.astype(dtype, copy=False)
        return a.copy() if copy else a

    @property
    def __cuda_array_interface__(self) -> dict:
        f = self._fields
        if f["memory"] != "device":
            raise AttributeError("__cuda_array_interface__: host memory")
        item = np.dtype(f["typestr"]).itemsize if f["typestr"] != "bfloat16" else 2
        contiguous = _contiguous(f["shape"], f["strides"], item)
        return {
            "shape": tuple(f["shape"]),
            "typestr": f["typestr"],
            "data": (self._memory.ptr + f["byte_offset"], bool(f["read_only"])),
            "strides": None if contiguous else tuple(f["strides"]),
            "version": 3,
            # The import waited for the exporter's event: the data is ready.
            "stream": None,
        }

    def __repr__(self) -> str:
        return f"SharedArray(shape={self.shape}, dtype={self.dtype}, device={self.device!r})"


def _as_uint16(a: SharedArray) -> Any:
    fields = dict(a._fields, data_type="uint16", typestr="<u2", dlpack_dtype={"code": 1, "bits": 16, "lanes": 1})
    return a._memory.view(json.dumps(fields))


def _contiguous(shape: list[int], strides: list[int], item: int) -> bool:
    expect = item
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def _keep_read_only(desc: str, read_only: bool) -> str:
    if not read_only:
        return desc
    fields = json.loads(desc)
    fields["read_only"] = True
    return json.dumps(fields)


def empty(shape: tuple[int, ...] | list[int], dtype: Any = "float32", device: str = "cpu", vmm: bool = False) -> SharedArray:
    """A zero-filled shareable array: host memory in a sealed memfd
    (device="cpu"), or device memory ("cuda", "cuda:1"): cudaMalloc, or
    cuMemCreate with a POSIX fd handle when ``vmm``."""
    name = _dtype_name(dtype)
    shape = [int(n) for n in shape]
    item = 2 if name == "bfloat16" else np.dtype(name if name != "bool" else np.bool_).itemsize
    nbytes = item * int(np.prod(shape, dtype=np.uint64)) if shape else item
    if device == "cpu":
        memory = _zarrgpu.SharedMemory.create_host(nbytes)
    else:
        index = int(device.split(":")[1]) if ":" in device else 0
        memory = _zarrgpu.SharedMemory.create_device(nbytes, index, vmm)
    return SharedArray(memory, memory.describe(name, shape))


def export(array: Any, stream: int = 0) -> tuple[str, int | None]:
    """(descriptor, fd) of a SharedArray or a zarrgpu.DeviceArray (device
    memory from cudaMalloc). ``fd`` (None for cuda_ipc handles) belongs to the
    array: send it (SCM_RIGHTS, ``socket.send_fds``) or pass it to a child,
    while the array lives. Device exports record an event on ``stream`` that
    importers wait on."""
    if isinstance(array, SharedArray):
        if array._fields["memory"] == "device":
            f = array._fields
            desc = array._memory.describe(f["data_type"], f["shape"], f["byte_offset"], f["strides"], True, stream)
            return _keep_read_only(desc, array.read_only), array.fd
        return array.descriptor, array.fd
    if isinstance(array, DeviceArray):
        index = int(array.device.split(":")[1]) if ":" in array.device else 0
        # The read's own stream when it has one: importers wait on what is queued there.
        producer = stream or (array.stream or 0)
        desc = _zarrgpu.ipc_export_device_pointer(array.ptr, array.zarr_dtype, list(array.shape), [], index, producer)
        return desc, None
    raise TypeError(f"cannot export {type(array).__name__}: use zarrgpu.ipc.empty() or a zarrgpu.DeviceArray")


def open(descriptor: str | bytes | dict, fd: int | None = None) -> SharedArray:  # noqa: A001 - the module's verb
    """The array a descriptor names, zero-copy. ``fd``: the memfd or VMM file
    descriptor received with it (the caller keeps it; it is duplicated).
    Waits for the exporter's event before returning."""
    text = _text(descriptor)
    memory = _zarrgpu.SharedMemory.open(text, -1 if fd is None else int(fd))
    return SharedArray(memory, _zarrgpu.ipc_validate(text))

