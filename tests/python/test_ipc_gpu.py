"""IPC of device memory on a GPU (skip without one): a child process exports a
zarrgpu read's output (legacy CUDA IPC handle) and a VMM allocation (POSIX fd
over SCM_RIGHTS); this process imports both zero-copy and checks the values
through a host copy, DLPack and the CUDA array interface."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from _zarrgpu_gpu import make_store, requires_gpu, zarrgpu
from zarrgpu import ipc

pytestmark = requires_gpu


def child_exports(code: str, sock: socket.socket) -> subprocess.Popen:
    prog = "import json, socket, numpy as np, zarrgpu\nfrom zarrgpu import ipc\n" + textwrap.dedent(code)
    return subprocess.Popen([sys.executable, "-c", prog, str(sock.fileno())], pass_fds=(sock.fileno(),))


def receive(sock: socket.socket) -> tuple[str, int | None]:
    msg, fds, _, _ = socket.recv_fds(sock, 1 << 16, 1)
    return msg.decode(), (fds[0] if fds else None)


def test_a_reads_device_output_opens_in_another_process(tmp_path):
    _, data = make_store(tmp_path / "s.zarr")
    parent, child = socket.socketpair()
    p = child_exports(f"""
        import sys
        s = socket.socket(fileno=int(sys.argv[1]))
        a = zarrgpu.open({str(tmp_path / "s.zarr")!r}).read(device="cuda")
        desc, fd = ipc.export(a)
        s.sendall(desc.encode())
        s.recv(1)  # the parent is done
    """, child)
    child.close()
    desc, fd = receive(parent)
    d = json.loads(desc)
    assert d["handle"]["kind"] == "cuda_ipc" and d["event"] is not None
    assert d["device"]["uuid"] == zarrgpu._zarrgpu.cuda_device_uuid(0)
    b = ipc.open(desc)
    assert (b.get() == data).all()
    assert b.__cuda_array_interface__["shape"] == data.shape
    assert b.__dlpack_device__()[0] == 2  # kDLCUDA
    try:
        import torch

        if torch.cuda.is_available():
            assert (torch.from_dlpack(b).cpu().numpy() == data).all()
    except ImportError:
        pass
    sub = b[3:5, 2:9]  # a slice view of the imported allocation
    assert (sub.get() == data[3:5, 2:9]).all()
    del b, sub
    parent.send(b"x")
    assert p.wait(60) == 0
    with pytest.raises(zarrgpu.NotFoundError):
        ipc.open(desc)  # its exporter has exited: stale


def test_vmm_fd_travels_over_scm_rights():
    parent, child = socket.socketpair()
    p = child_exports("""
        import sys
        s = socket.socket(fileno=int(sys.argv[1]))
        a = ipc.empty((64, 33), "float64", device="cuda", vmm=True)
        a.set(np.arange(64 * 33, dtype=np.float64).reshape(64, 33))
        desc, fd = ipc.export(a[10:20])
        socket.send_fds(s, [desc.encode()], [fd])
        s.recv(1)
    """, child)
    child.close()
    desc, fd = receive(parent)
    assert json.loads(desc)["handle"] == {"kind": "fd"} and fd is not None
    b = ipc.open(desc, fd)
    want = np.arange(64 * 33, dtype=np.float64).reshape(64, 33)[10:20]
    assert (b.get() == want).all()
    b.set(-want)  # written here, visible to the exporter's memory
    assert (b.get() == -want).all()
    parent.send(b"x")
    assert p.wait(60) == 0


def test_forged_handle_is_not_found():
    d = json.loads(ipc.empty((4,), "float32").descriptor)
    d.update(memory="device", device={"type": "cuda", "index": 0, "uuid": zarrgpu._zarrgpu.cuda_device_uuid(0)},
             handle={"kind": "cuda_ipc", "value": "5a" * 64})
    with pytest.raises(zarrgpu.NotFoundError):
        ipc.open(d)


def test_the_cache_service_lends_device_memory(zarrgpu_bin, tmp_path):
    """`zarrgpu serve --device cuda:0`: reads through the device pipeline into VMM
    allocations lent as POSIX fds, read-only, values as the store's."""
    import signal

    from _ipc_service import Service

    _, data = make_store(tmp_path / "s.zarr")
    svc = Service(zarrgpu_bin, tmp_path / "svc", "64MiB")
    svc.args[svc.args.index("--device") + 1] = "cuda:0"
    svc.start()
    try:
        with ipc.CacheClient(svc.socket_path) as c:
            assert c.memory == "device"
            lease = c.read(tmp_path / "s.zarr", "", "2:20,::2")
            d = json.loads(lease.array.descriptor)
            assert d["handle"] == {"kind": "fd"} and d["memory"] == "device" and d["read_only"]
            assert (lease.array.get() == data[2:20, ::2]).all()
            assert c.read(tmp_path / "s.zarr", "", "2:20,::2").hit
            try:
                import torch

                if torch.cuda.is_available():
                    assert (torch.from_dlpack(lease).cpu().numpy() == data[2:20, ::2]).all()
            except ImportError:
                pass
            with pytest.raises(zarrgpu.InvalidArgumentError, match="read-only"):
                lease.array.set(np.zeros((18, 15), np.float32))
            w = c.create("dev", (4, 4), "float32")
            w.array.set(np.eye(4, dtype=np.float32))
            c.publish("dev")
            with ipc.CacheClient(svc.socket_path) as other:
                assert (other.open("dev").array.get() == np.eye(4)).all()
    finally:
        svc.kill(signal.SIGTERM)
