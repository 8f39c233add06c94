"""Sharing arrays between processes and languages without a copy (docs/ipc.md).

An exported array travels as a descriptor (JSON text) plus, for host memory
(memfd) and CUDA virtual-memory allocations, a file descriptor passed beside
it (over a Unix socket with SCM_RIGHTS, or inherited)::

    from zarrgpu import ipc
    a = ipc.empty((4, 5), "float32")           # host memory in a sealed memfd
    np.asarray(a)[:] = 1
    desc, fd = ipc.export(a[1:3])              # a slice: the base allocation + offset
    # ... in another process, with the fd received:
    b = ipc.open(desc, fd)                     # zero-copy
    np.asarray(b)                              # host: NumPy; device: torch.from_dlpack(b)

Device memory exports the legacy CUDA IPC handle of a cudaMalloc allocation
(any ``zarrgpu.DeviceArray``) or, with ``vmm=True``, a cuMemCreate allocation
as a POSIX file descriptor. Imported device arrays offer DLPack and
``__cuda_array_interface__``. Malformed, forged, stale or oversized
descriptors raise :class:`zarrgpu.InvalidArgumentError`,
:class:`zarrgpu.NotFoundError` (a CUDA handle that no longer opens) or
:class:`zarrgpu.UnsupportedError` (another descriptor version).
"""

from __future__ import annotations

from ._client import CacheClient, Lease, ServiceError
from ._shared import DESCRIPTOR_VERSION, SharedArray, empty, export, open, validate

__all__ = ["DESCRIPTOR_VERSION", "CacheClient", "Lease", "ServiceError", "SharedArray", "empty", "export", "open", "validate"]
