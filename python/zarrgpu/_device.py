"""Devices, streams and foreign buffers (CUDA array interface, DLPack).

Turns the ``device=`` and ``stream=`` arguments into what ``_zarrgpu`` takes,
and describes a caller's ``out=`` buffer or a device array being written as
(pointer, shape, dtype, device) after checking it is C-contiguous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _zarrgpu
from .errors import InvalidArgumentError

KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_CUDA_MANAGED = 13


@dataclass(frozen=True)
class Device:
    kind: str  # "cpu" or "cuda"
    index: int = 0

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"cuda:{self.index}"


_DEVICE_RE = re.compile(r"^(cpu|cuda|gpu)(?::(\d+))?$")


def parse_device(device: Any) -> Device:
    """"cpu", "cuda", "cuda:1", an int (a CUDA ordinal), or a torch/cupy device object."""
    if device is None:
        return Device("cpu")
    if isinstance(device, Device):
        return device
    if isinstance(device, int) and not isinstance(device, bool):
        return Device("cuda", device)
    if not isinstance(device, str):
        # torch.device(type="cuda", index=1), cupy.cuda.Device(1)
        kind = getattr(device, "type", None)
        if kind in ("cpu", "cuda"):
            return Device(kind, getattr(device, "index", None) or 0)
        if hasattr(device, "id"):
            return Device("cuda", int(device.id))
        device = str(device)
    m = _DEVICE_RE.match(device.strip().lower())
    if not m:
        raise InvalidArgumentError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    kind = "cpu" if m.group(1) == "cpu" else "cuda"
    if kind == "cpu" and m.group(2) not in (None, "0"):
        raise InvalidArgumentError(f"there is one CPU device; got {device!r}")
    return Device(kind, int(m.group(2) or 0))


def stream_handle(stream: Any) -> int | None:
    """A cudaStream_t as an int: accepts ints, cupy (.ptr), torch (.cuda_stream), __cuda_stream__."""
    if stream is None:
        return None
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise InvalidArgumentError(f"cannot get a CUDA stream handle from {type(stream).__name__}")


@dataclass
class ForeignBuffer:
    """A C-contiguous buffer another library owns. `keepalive` must outlive its use."""

    ptr: int
    shape: tuple[int, ...]
    dtype: np.dtype | None  # None: a DLPack type NumPy cannot name (checked by code/bits)
    dl_code_bits: tuple[int, int] | None
    device: Device
    readonly: bool
    stream: int | None  # the stream to use the buffer on (CAI: the producer's; DLPack: the one it synced)
    keepalive: Any


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, acc = [], itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def _is_c_contiguous(shape, strides_bytes, itemsize) -> bool:
    if strides_bytes is None:
        return True
    return all(s == c for n, s, c in zip(shape, strides_bytes, _c_strides(shape, itemsize)) if n > 1)


def _object_device_index(obj: Any) -> int:
    dev = getattr(obj, "device", None)
    if dev is None:
        return 0
    if hasattr(dev, "index"):  # torch.device
        return dev.index or 0
    if hasattr(dev, "id"):  # cupy.cuda.Device
        return int(dev.id)
    try:
        return parse_device(dev).index
    except InvalidArgumentError:
        return 0


def describe_cuda_array_interface(obj: Any) -> ForeignBuffer:
    cai = obj.__cuda_array_interface__
    shape = tuple(int(n) for n in cai["shape"])
    dtype = np.dtype(cai["typestr"])
    if not _is_c_contiguous(shape, cai.get("strides"), dtype.itemsize):
        raise InvalidArgumentError("the device buffer is not C-contiguous; make it contiguous first")
    if cai.get("mask") is not None:
        raise InvalidArgumentError("masked __cuda_array_interface__ buffers are not supported")
    ptr, readonly = cai["data"]
    return ForeignBuffer(int(ptr), shape, dtype, None, Device("cuda", _object_device_index(obj)),
                         bool(readonly), cai.get("stream"), obj)


_DL_TO_NUMPY_KIND = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}


def describe_dlpack(obj: Any, consumer_stream: int | None) -> ForeignBuffer:
    """The tensor behind obj.__dlpack__(); `consumer_stream` is the stream we will use it on."""
    dev_type, dev_id = obj.__dlpack_device__()
    kwargs = {}
    if dev_type == KDL_CUDA:
        kwargs["stream"] = consumer_stream if consumer_stream is not None else 1
    try:
        capsule = obj.__dlpack__(max_version=(1, 0), **kwargs)
    except TypeError:  # a pre-1.0 producer: no max_version keyword
        capsule = obj.__dlpack__(**kwargs)
    info = _zarrgpu._inspect_dlpack(capsule)
    shape = tuple(info["shape"])
    itemsize = info["bits"] // 8
    if info["lanes"] != 1:
        raise InvalidArgumentError("vector (lanes > 1) DLPack types are not supported")
    strides = info["strides"]
    if strides is not None and not _is_c_contiguous(shape, tuple(s * itemsize for s in strides), itemsize):
        raise InvalidArgumentError("the DLPack tensor is not C-contiguous; make it contiguous first")
    kind = _DL_TO_NUMPY_KIND.get(info["code"])
    dtype = np.dtype(f"{kind}{itemsize}") if kind else None
    if info["device_type"] == KDL_CPU:
        device = Device("cpu")
    elif info["device_type"] in (KDL_CUDA, KDL_CUDA_MANAGED):
        device = Device("cuda", info["device_id"])
    else:
        raise InvalidArgumentError(f"DLPack device type {info['device_type']} is not supported (CPU or CUDA only)")
    # The producer made kwargs["stream"] wait for its work: use the buffer on that stream.
    return ForeignBuffer(info["data"], shape, dtype, (info["code"], info["bits"]), device,
                         bool(info["read_only"]), kwargs.get("stream"), (obj, capsule))


def to_host(value: Any) -> np.ndarray:
    """A host NumPy array with value's contents: device arrays are copied to the host."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, _zarrgpu.DeviceArray):
        return value.get()
    buf = None
    if hasattr(value, "__cuda_array_interface__"):
        try:
            buf = describe_cuda_array_interface(value)
        except (AttributeError, TypeError):
            buf = None
    if buf is None and hasattr(value, "__dlpack_device__") and value.__dlpack_device__()[0] != KDL_CPU:
        buf = describe_dlpack(value, consumer_stream=1)
        if buf.dtype is None:
            raise InvalidArgumentError(f"cannot copy a DLPack tensor of type code {buf.dl_code_bits} to the host")
    if buf is None:
        return np.asarray(value)
    host = np.empty(buf.shape, dtype=buf.dtype)
    if host.nbytes:
        if buf.stream is not None:
            _zarrgpu._synchronize_stream(int(buf.stream), buf.device.index)
        _zarrgpu._copy_device_to_host(buf.ptr, host.reshape(-1).view(np.uint8))
    return host
