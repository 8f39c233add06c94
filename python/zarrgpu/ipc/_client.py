"""The cache service's Python client (``zarrgpu serve``; docs/ipc.md)::

    from zarrgpu import ipc
    with ipc.CacheClient() as c:                 # $XDG_RUNTIME_DIR/zarrgpu/cache.sock
        lease = c.read("/data/era5.zarr", "t2m", "0:24")
        x = np.asarray(lease)                    # host memory; device: torch.from_dlpack(lease)
        lease.release()                          # or let the connection's close release it

Errors the service reports arrive as zarrgpu's exception classes (an unknown
array is a NotFoundError, a request larger than the budget an
InvalidArgumentError, a full budget a DeviceError); a service that exits or
restarts is a :class:`ServiceError` on the next request.
"""

from __future__ import annotations

import json
import os
import socket
import struct
from typing import Any

from .. import errors as _errors
from ._shared import SharedArray
from ._shared import open as _open_descriptor

_MAX_FRAME = 1 << 20
_MAX_FDS = 4
_CLASSES = {
    "invalid_argument": _errors.InvalidArgumentError,
    "not_found": _errors.NotFoundError,
    "invalid_metadata": _errors.InvalidMetadataError,
    "unsupported": _errors.UnsupportedError,
    "corrupt_data": _errors.CorruptDataError,
    "io": _errors.StorageError,
    "device": _errors.DeviceError,
    "internal": _errors.InternalError,
    "resource_exhausted": _errors.ResourceExhaustedError,
}


class ServiceError(_errors.ZarrgpuError, ConnectionError):
    """The cache service is not there, or closed the connection (it exited or
    restarted): leases taken on that connection are void."""

    kind = "io"


def default_socket_path() -> str:
    """As the service's default: $XDG_RUNTIME_DIR/zarrgpu/cache.sock, else /tmp/zarrgpu-<uid>/cache.sock."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "zarrgpu", "cache.sock")
    return f"/tmp/zarrgpu-{os.geteuid()}/cache.sock"


def _selection_text(selection: Any) -> str:
    if selection is None:
        return ""
    if isinstance(selection, str):
        return selection
    parts = []
    for s in selection if isinstance(selection, tuple) else (selection,):
        if isinstance(s, slice):
            parts.append(":".join("" if v is None else str(int(v)) for v in (s.start, s.stop, s.step)).rstrip(":") or ":")
        elif isinstance(s, (list, tuple)):
            parts.append("[" + " ".join(str(int(v)) for v in s) + "]")
        else:
            parts.append(str(int(s)))
    return ",".join(parts)


class Lease:
    """An array lent by the service: its memory stays as it is (never evicted,
    freed or reused) until release() or the client's connection closes."""

    def __init__(self, client: "CacheClient", lease_id: str, array: SharedArray, hit: bool):
        self._client = client
        self.id = lease_id
        self.array = array
        self.hit = hit
        self.released = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self._client._request({"op": "release", "lease": self.id})

    def __enter__(self) -> "Lease":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

    # The leased array's protocols.
    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return self.array.__array__(dtype, copy)

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()

    @property
    def __cuda_array_interface__(self) -> dict:
        return self.array.__cuda_array_interface__

    def __repr__(self) -> str:
        return f"Lease({self.id!r}, {self.array!r}, hit={self.hit})"


class CacheClient:
    """A connection to ``zarrgpu serve``. Not thread-safe: one per thread."""

    def __init__(self, socket_path: str | os.PathLike | None = None, timeout: float | None = None):
        self.socket_path = os.fspath(socket_path) if socket_path is not None else default_socket_path()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(self.socket_path)
        except OSError as e:
            self._sock.close()
            raise ServiceError(f"no zarrgpu cache service at {self.socket_path}: {e.strerror or e}") from None
        hello, _ = self._request({"op": "hello"})
        self.instance: str = hello["instance"]
        self.memory: str = hello["memory"]
        self.device: str = hello["device"]
        self.devices: list[str] = hello.get("devices", [self.device])
        self.budget: int = hello["budget"]
        self.service_pid: int = hello["pid"]

    # -- requests ----------------------------------------------------------
    def read(self, store: str | os.PathLike, array: str = "", selection: Any = None, device: str | None = None) -> Lease:
        """Leases (store, array, selection), read through zarrgpu on a miss;
        ``device``: one of the service's GPUs (``self.devices``), else its first."""
        request = {"op": "read", "store": os.fspath(store), "array": array, "selection": _selection_text(selection)}
        if device is not None:
            request["device"] = device
        return self._lease(request)

    def create(self, name: str, shape: tuple[int, ...] | list[int], dtype: str = "float32") -> Lease:
        """A new named array, zero-filled, writable through this lease until published."""
        from ._shared import _dtype_name

        return self._lease({"op": "create", "name": name, "data_type": _dtype_name(dtype), "shape": [int(n) for n in shape]})

    def publish(self, name: str) -> None:
        """Lets other clients open the named array this client created."""
        self._request({"op": "publish", "name": name})

    def open(self, name: str) -> Lease:
        """Leases a published named array (read-only)."""
        return self._lease({"op": "open", "name": name})

    def remove(self, name: str) -> None:
        """Removes a named array no lease holds."""
        self._request({"op": "remove", "name": name})

    def stats(self) -> dict:
        answer, _ = self._request({"op": "stats"})
        answer.pop("ok", None)
        return answer

    def close(self) -> None:
        """Closes the connection: the service releases every lease taken on it."""
        self._sock.close()

    def __enter__(self) -> "CacheClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- the wire ----------------------------------------------------------
    def _lease(self, request: dict) -> Lease:
        answer, fds = self._request(request)
        try:
            array = _open_descriptor(answer["descriptor"], fds[0] if fds else None)
        finally:
            for fd in fds:
                os.close(fd)
        return Lease(self, answer["lease"], array, bool(answer.get("hit", False)))

    def _request(self, request: dict) -> tuple[dict, list[int]]:
        payload = json.dumps(request).encode()
        try:
            self._sock.sendall(struct.pack("<I", len(payload)) + payload)
            fds: list[int] = []
            header = self._receive(4, fds)
            (n,) = struct.unpack("<I", header)
            if n > _MAX_FRAME:
                raise ServiceError(f"the cache service sent a frame of {n} bytes")
            answer = json.loads(self._receive(n, fds))
        except (ConnectionError, OSError) as e:
            if isinstance(e, ServiceError):
                raise
            raise ServiceError(
                f"the cache service at {self.socket_path} closed the connection (it exited or restarted): "
                "leases taken on it are void") from None
        if not answer.get("ok"):
            for fd in fds:
                os.close(fd)
            err = answer.get("error", {})
            cls = _CLASSES.get(err.get("kind"), _errors.InternalError)
            exc = cls(f"cache service: {err.get('message', '')}")
            for k in ("kind", "cause", "array", "chunk_key", "codec", "store", "document"):
                setattr(exc, k, err.get(k, ""))
            raise exc
        return answer, fds

    def _receive(self, n: int, fds: list[int]) -> bytes:
        data = b""
        while len(data) < n:
            chunk, ancdata, flags, _ = self._sock.recvmsg(n - len(data), socket.CMSG_SPACE(_MAX_FDS * 4))
            for level, kind, body in ancdata:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.extend(struct.unpack(f"{len(body) // 4}i", body[: len(body) - len(body) % 4]))
            if not chunk:
                for fd in fds:
                    os.close(fd)
                raise ConnectionError("closed")
            data += chunk
        return data
