"""IPC of device memory on a GPU (skip without one): a child process exports a
zarrgpu read's output (legacy CUDA IPC handle) and a VMM allocation (POSIX fd
over SCM_RIGHTS); this process imports both zero-copy and checks the values
through a host copy, DLPack and the CUDA array interface; the cache service on
the GPU gives its device memory back when its clients and itself are killed."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from _zarrgpu_gpu import make_store, requires_gpu, zarrgpu
from zarrgpu import ipc

pytestmark = requires_gpu


def child_exports(code: str, sock: socket.socket) -> subprocess.Popen:
    prog = "import json, socket, numpy as np, zarrgpu\nfrom zarrgpu import ipc\n" + textwrap.dedent(code)
    return subprocess.Popen([sys.executable, "-c", prog, str(sock.fileno())], pass_fds=(sock.fileno(),))


def device_service(zarrgpu_bin, directory, budget: str, devices: str = "cuda:0"):
    """`zarrgpu serve` on GPUs (the tests' Service defaults to host memory), started."""

    svc = Service(zarrgpu_bin, directory, budget)
    svc.args[svc.args.index("--device") + 1] = devices
    return svc.start()


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


    _, data = make_store(tmp_path / "s.zarr")
    svc = device_service(zarrgpu_bin, tmp_path / "svc", "64MiB")
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


KILL_CLIENT = """
import os, random, sys
import numpy as np
import zarrgpu
from zarrgpu import ipc
sock, store, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = zarrgpu.open(store).read()
rng = random.Random(seed)
c = ipc.CacheClient(sock)
held = []
while True:
    start = rng.randrange(0, want.shape[0] - 1)
    stop = min(want.shape[0], start + rng.randrange(1, 512))
    try:
        lease = c.read(store, "", f"{start}:{stop}")
    except ipc.ServiceError:
        print("SERVICE GONE", flush=True)
        os._exit(5)
    except zarrgpu.DeviceError:  # the budget is full of leases: give one back
        if held:
            held.pop(0)[0].release()
        continue
    if not (lease.array.get() == want[start:stop]).all():
        print("WRONG VALUES", start, stop, flush=True)
        os._exit(3)
    held.append((lease, start, stop))
    if len(held) > 3 or rng.random() < 0.3:
        held.pop(rng.randrange(len(held)))[0].release()
    print("LEASED", flush=True)
"""


def test_killed_clients_and_service_give_the_device_memory_back(zarrgpu_bin, tmp_path):
    """Clients killed at random points while they hold device leases, then the
    service killed while a client still maps one: the service's device memory
    does not grow from round to round, and once every process has exited the
    GPU's free memory is back at its starting level (nothing leaked, no
    allocation kept alive by a dead process)."""
    import random
    import signal

    from _ipc_service import wait_for

    torch = pytest.importorskip("torch")
    path = tmp_path / "big.zarr"
    rows, cols = 4096, 4096  # float32: 64 MiB in chunks of 4 MiB
    a = zarrgpu.create_array(str(path), shape=(rows, cols), chunks=(256, cols), dtype="float32")
    a[...] = np.random.default_rng(38).standard_normal((rows, cols), dtype=np.float32)
    torch.empty(1, device="cuda")
    torch.cuda.synchronize()

    def free() -> int:
        return torch.cuda.mem_get_info()[0]

    slack = 16 << 20  # the driver's own bookkeeping between two readings
    start = free()
    svc = device_service(zarrgpu_bin, tmp_path / "svc", str(96 << 20))
    rng = random.Random(3838)
    after_round = []
    try:
        for round_ in range(3):
            clients = [subprocess.Popen([sys.executable, "-c", KILL_CLIENT, svc.socket_path, str(path), str(rng.randrange(1 << 30))],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
            for p in clients:  # each has leased at least once: it holds device mappings when killed
                assert p.stdout.readline().strip() == "LEASED", p.stderr.read()
            time.sleep(rng.uniform(0.2, 1.0))
            for p in clients:
                p.send_signal(rng.choice([signal.SIGKILL, signal.SIGTERM]))
            for p in clients:
                out, err = p.communicate(timeout=60)
                assert "WRONG" not in out, (out, err)
                assert p.returncode < 0, (p.returncode, err)
            assert svc.alive()
            with ipc.CacheClient(svc.socket_path) as probe:
                wait_for(lambda: probe.stats()["leases"] == 0, what="the dead clients' leases to end")
                assert probe.stats()["bytes"] <= 96 << 20
            after_round.append(free())
        # Rounds 2 and 3 reuse what round 1 set up (cache within its budget, the
        # read path's buffers): the service's share does not grow.
        assert min(after_round[1:]) >= after_round[0] - (96 << 20) - slack, [start - f for f in after_round]

        holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
            import sys, numpy as np
            from zarrgpu import ipc
            lease = ipc.CacheClient(sys.argv[1]).read(sys.argv[2], "", "0:256")
            before = lease.array.get()
            print("LEASED", flush=True); sys.stdin.readline()
            print("SAME" if (lease.array.get() == before).all() else "CHANGED", flush=True)
        """), svc.socket_path, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert holder.stdout.readline().strip() == "LEASED", holder.stderr.read()
        svc.kill(signal.SIGKILL)
        out, err = holder.communicate("go\n", timeout=60)  # its mapping outlived the service
        assert out.strip() == "SAME" and holder.returncode == 0, (out, err)
    finally:
        svc.kill(signal.SIGKILL)
    wait_for(lambda: free() >= start - slack, timeout=30,
             what=f"the GPU's free memory to return to its starting level ({start >> 20} MiB)")


def test_one_service_serves_two_gpus(zarrgpu_bin, tmp_path):
    """`--device cuda:0,cuda:1` (needs two GPUs): a read names its GPU, the lease's
    memory lives on it (descriptor and DLPack say so), each GPU caches its own copy."""
    import signal


    torch = pytest.importorskip("torch")
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    _, data = make_store(tmp_path / "s.zarr")
    svc = device_service(zarrgpu_bin, tmp_path / "svc", "64MiB", "cuda:0,cuda:1")
    try:
        with ipc.CacheClient(svc.socket_path) as c:
            assert c.devices == ["cuda:0", "cuda:1"]
            for index in (1, 0):
                lease = c.read(tmp_path / "s.zarr", "", "1:9", device=f"cuda:{index}")
                d = json.loads(lease.array.descriptor)
                assert d["device"]["index"] == index and not lease.hit
                assert d["device"]["uuid"] == zarrgpu._zarrgpu.cuda_device_uuid(index)
                assert lease.__dlpack_device__() == (2, index)
                assert (lease.array.get() == data[1:9]).all()
                assert c.read(tmp_path / "s.zarr", "", "1:9", device=f"cuda:{index}").hit
    finally:
        svc.kill(signal.SIGTERM)


def test_a_gpu_out_of_memory_is_that_clients_error(zarrgpu_bin, tmp_path):
    """A request the GPU cannot hold, under a budget that allows it (a named array of
    4 TiB), is a clear error to the client that asked; the service serves it and
    others on."""
    import signal


    _, data = make_store(tmp_path / "s.zarr")
    svc = device_service(zarrgpu_bin, tmp_path / "svc", "16TiB")
    try:
        with ipc.CacheClient(svc.socket_path) as c, ipc.CacheClient(svc.socket_path) as other:
            with pytest.raises(zarrgpu.DeviceError, match="out of GPU memory"):
                c.create("huge", (1 << 40,), "float32")
            assert svc.alive()
            assert (c.read(tmp_path / "s.zarr", "", "").array.get() == data).all()
            assert (other.read(tmp_path / "s.zarr", "", "2:5").array.get() == data[2:5]).all()
            assert c.stats()["leases"] == 2
    finally:
        svc.kill(signal.SIGTERM)
