"""The cache service (`zarrgpu serve`, docs/ipc.md) in host-memory mode, as CI
runs it: the socket's directory and modes, reads compared with zarr-python,
hits, LRU eviction within the budget, leases that keep memory in place,
64 concurrent clients sharing a small budget all served, named arrays, clients and the service killed at random points (no lease, fd
or mapping left behind, no client reading freed memory), and bad requests
answered to their sender only."""

from __future__ import annotations

import json
import os
import random
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import zarrgpu
from zarrgpu import ipc

from _ipc_service import Service, fd_count, raw_request, read_frame, wait_for

zarr = pytest.importorskip("zarr")

ROWS, COLS = 40, 50  # float32: 200 bytes a row, 8000 the array


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.zarr"
    data = np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS)
    a = zarr.create_array(str(path), name="x", shape=data.shape, chunks=(10, 10), dtype="float32")
    a[...] = data
    zarr.create_array(str(path), name="s", shape=(3,), dtype=str)
    return path, data


@pytest.fixture
def service(zarrgpu_bin, tmp_path):
    s = Service(zarrgpu_bin, tmp_path / "svc").start()
    yield s
    s.kill(signal.SIGTERM)


def make_service(zarrgpu_bin, tmp_path, budget, *extra):
    return Service(zarrgpu_bin, tmp_path / f"svc-{budget}", budget, *extra).start()


def test_socket_lives_in_a_user_only_directory(service):
    d = os.stat(os.path.dirname(service.socket_path))
    assert stat.S_IMODE(d.st_mode) == 0o700 and d.st_uid == os.geteuid()
    s = os.stat(service.socket_path)
    assert stat.S_ISSOCK(s.st_mode) and stat.S_IMODE(s.st_mode) == 0o600
    # No network listener: every socket the service holds is a Unix one.
    inodes = {os.readlink(f"/proc/{service.proc.pid}/fd/{f}")[8:-1]
              for f in os.listdir(f"/proc/{service.proc.pid}/fd")
              if os.readlink(f"/proc/{service.proc.pid}/fd/{f}").startswith("socket:[")}
    inet = ""
    for table in ("tcp", "tcp6", "udp", "udp6"):
        try:
            inet += open(f"/proc/net/{table}").read()
        except OSError:
            pass
    assert inodes and not any(f" {i} " in inet for i in inodes)


def test_refuses_a_directory_others_may_enter(zarrgpu_bin, tmp_path):
    wide = tmp_path / "wide"
    wide.mkdir(mode=0o755)
    wide.chmod(0o755)
    r = subprocess.run([str(zarrgpu_bin), "serve", "--socket", str(wide / "c.sock"), "--device", "cpu"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "must be 700" in r.stderr


def test_a_second_service_on_the_same_socket_is_refused(service, zarrgpu_bin):
    r = subprocess.run([str(zarrgpu_bin), "serve", "--socket", service.socket_path, "--device", "cpu"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "already listens" in r.stderr
    assert service.alive()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
@pytest.mark.parametrize("allowed", [False, True])
def test_peers_of_other_users_are_refused_unless_allowed(zarrgpu_bin, tmp_path, store, allowed):
    svc = make_service(zarrgpu_bin, tmp_path, "1MiB", *(["--allow-uid", "65534"] if allowed else []))
    try:
        # Let the other user reach the socket (from inside its directory): SO_PEERCRED decides.
        os.chmod(os.path.dirname(svc.socket_path), 0o711)
        os.chmod(svc.socket_path, 0o666)
        code = textwrap.dedent(f"""
            import os, socket, struct
            os.chdir({os.path.dirname(svc.socket_path)!r})
            os.setgid(65534); os.setuid(65534)
            s = socket.socket(socket.AF_UNIX); s.connect("cache.sock")
            try:
                s.sendall(struct.pack("<I", 14) + b'{{"op":"hello"}}')
                print("answered" if s.recv(4) else "closed")
            except (BrokenPipeError, ConnectionResetError):
                print("closed")
        """)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
        assert r.stdout.strip() == ("answered" if allowed else "closed"), r.stderr
    finally:
        svc.kill(signal.SIGTERM)


def test_read_matches_zarr_python_and_hits_the_second_time(service, store):
    path, data = store
    with ipc.CacheClient(service.socket_path) as c:
        assert c.memory == "host" and c.device == "cpu" and c.devices == ["cpu"]
        first = c.read(path, "x", (slice(5, 25), slice(None, None, 3)))
        assert not first.hit
        assert (np.asarray(first) == data[5:25, ::3]).all()
        assert not np.asarray(first).flags.writeable  # leased read-only
        second = c.read(path, "x", "5:25,::3")
        assert second.hit and (np.asarray(second) == data[5:25, ::3]).all()
        d = json.loads(second.array.descriptor)
        assert d["lease"] == second.id and d["read_only"]
        s = c.stats()
        assert s["entries"] == 1 and s["leases"] == 2 and s["hits"] == 1 and s["misses"] == 1


def test_lru_evicts_unleased_entries_and_never_leased_ones(zarrgpu_bin, tmp_path, store):
    path, data = store
    svc = make_service(zarrgpu_bin, tmp_path, "5000")  # two 2000-byte selections fit
    try:
        with ipc.CacheClient(svc.socket_path) as c:
            a = c.read(path, "x", "0:10")
            a_view = np.asarray(a)
            b = c.read(path, "x", "10:20")
            b.release()
            c.read(path, "x", "20:30").release()  # evicts b, the least recently used unleased entry
            assert c.stats()["evictions"] == 1
            assert c.read(path, "x", "0:10").hit  # a: leased, kept
            assert not c.read(path, "x", "10:20").hit  # b: read again
            # Every byte now leased: a third selection cannot be made room for.
            with pytest.raises(zarrgpu.DeviceError, match="budget"):
                c.read(path, "x", "30:40")
            assert (a_view == data[0:10]).all()  # never freed nor reused
            a.release()
            with pytest.raises(zarrgpu.InvalidArgumentError, match="whole budget"):
                c.read(path, "x")  # 8000 bytes > 5000: no eviction could help
            assert c.stats()["leases"] == 2
    finally:
        svc.kill(signal.SIGTERM)


def test_64_concurrent_clients_sharing_a_small_budget_are_all_served(zarrgpu_bin, tmp_path, store):
    # Issue 38's goal. 64 connections at once, each leasing single rows (misses
    # mostly: the 2000-byte budget holds 10 of the 200-byte rows) and holding
    # each lease briefly: a full budget under other clients' short leases is a
    # wait for their release, never an error.
    path, data = store
    svc = make_service(zarrgpu_bin, tmp_path, "2000")
    clients, requests = 64, 10
    start = threading.Barrier(clients)
    failures, served = [], []

    def client(index: int) -> None:
        try:
            start.wait(60)
            with ipc.CacheClient(svc.socket_path, timeout=60) as c:
                for k in range(requests):
                    row = (index * 7 + k * 13) % ROWS
                    with c.read(path, "x", f"{row}:{row + 1}") as lease:
                        assert (np.asarray(lease) == data[row:row + 1]).all()
                        time.sleep(0.002)  # the client uses the data a moment
                    served.append(row)
        except Exception as e:  # noqa: BLE001 - every failure is reported below
            failures.append(f"client {index}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        assert not failures, failures[:5]
        assert len(served) == clients * requests
        with ipc.CacheClient(svc.socket_path) as c:
            s = c.stats()
            assert s["leases"] == 0 and s["bytes"] <= 2000
        assert svc.alive()
    finally:
        svc.kill(signal.SIGTERM)


def test_a_mapping_outlives_eviction_of_its_entry(zarrgpu_bin, tmp_path, store):
    path, data = store
    svc = make_service(zarrgpu_bin, tmp_path, "2000")
    try:
        with ipc.CacheClient(svc.socket_path) as c:
            lease = c.read(path, "x", "0:10")
            view = np.asarray(lease)
            lease.release()
            c.read(path, "x", "30:40").release()  # evicts the first entry: the service unmaps it
            assert c.stats()["evictions"] == 1
            # The memfd lives while this process maps it: same bytes, no fault.
            assert (view == data[0:10]).all()
    finally:
        svc.kill(signal.SIGTERM)


def test_named_arrays_create_write_publish_open(service):
    with ipc.CacheClient(service.socket_path) as writer, ipc.CacheClient(service.socket_path) as reader:
        w = writer.create("field", (6, 7), "float64")
        np.asarray(w)[...] = np.arange(42.0).reshape(6, 7)
        with pytest.raises(zarrgpu.NotFoundError):
            reader.open("field")  # not published yet
        with pytest.raises(zarrgpu.InvalidArgumentError, match="only the connection"):
            reader.publish("field")
        writer.publish("field")
        r = reader.open("field")
        assert (np.asarray(r) == np.arange(42.0).reshape(6, 7)).all()
        assert not np.asarray(r).flags.writeable
        with pytest.raises(zarrgpu.InvalidArgumentError, match="exists"):
            reader.create("field", (1,), "int8")
        with pytest.raises(zarrgpu.InvalidArgumentError, match="lease"):
            writer.remove("field")  # leases remain
        r.release()
        w.release()
        writer.remove("field")
        with pytest.raises(zarrgpu.NotFoundError):
            reader.open("field")
        assert writer.stats()["bytes"] == 0


def test_errors_reach_their_client_only(service, store, tmp_path):
    path, data = store
    with ipc.CacheClient(service.socket_path) as good, ipc.CacheClient(service.socket_path) as bad:
        lease = good.read(path, "x", "0:2")
        with pytest.raises(zarrgpu.NotFoundError, match="nope"):
            bad.read(path, "nope")
        with pytest.raises(zarrgpu.NotFoundError):
            bad.read(tmp_path / "missing.zarr", "x")
        with pytest.raises(zarrgpu.InvalidArgumentError):
            bad.read(path, "x", "0:10,99")
        with pytest.raises(zarrgpu.UnsupportedError, match="numeric"):
            bad.read(path, "s")
        with pytest.raises(zarrgpu.InvalidArgumentError, match="not one this service serves"):
            bad.read(path, "x", "0:2", device="cuda:1")
        with pytest.raises(zarrgpu.InvalidArgumentError, match="name"):
            bad.create("../etc", (1,), "int8")
        with pytest.raises(zarrgpu.InvalidArgumentError, match="numeric"):
            bad.create("n", (1,), "string")
        with pytest.raises(zarrgpu.NotFoundError, match="lease"):
            bad._request({"op": "release", "lease": lease.id})  # not its lease
        assert (np.asarray(lease) == data[0:2]).all()
        assert good.read(path, "x", "0:2").hit
        assert bad.stats()["entries"] == 1


def test_a_store_failing_mid_read_is_that_clients_error(service, store):
    path, data = store
    (path / "x" / "c" / "2" / "3").write_bytes(b"\x00garbage")  # one chunk of rows 20..29 corrupt
    with ipc.CacheClient(service.socket_path) as c:
        with pytest.raises(zarrgpu.CorruptDataError) as e:
            c.read(path, "x")
        assert "c/2/3" in str(e.value)
        s = c.stats()
        assert s["entries"] == 0 and s["bytes"] == 0  # the reservation went back
        assert (np.asarray(c.read(path, "x", "0:20")) == data[0:20]).all()


@pytest.mark.parametrize("payload,length,closes", [
    (b"not json", None, False),
    (b"[1, 2]", None, False),
    (b'{"op": 7}', None, False),
    (b'{"op": "launch"}', None, False),
    (b'{"op": "read"}', None, False),
    (b'{"op": "read", "store": 5}', None, False),
    (b'{"op": "create", "name": "a", "data_type": "int8", "shape": [-1]}', None, False),
    (b'{"op": "create", "name": "a", "data_type": "int8", "shape": [4294967296, 4294967296, 4294967296]}', None, False),
    (b'{"op": "hello", "x": ' + b"[" * 50 + b"]" * 50 + b"}", None, False),
    (b'{"op": "read", "store": "' + b"a" * 5000 + b'"}', None, False),
    (b"{}", 1 << 30, True),   # a length over the limit: refused before any allocation, connection closed
])
def test_malformed_requests_get_clear_errors(service, payload, length, closes):
    answer, s = raw_request(service.socket_path, payload, length)
    try:
        assert answer is not None
        reply = json.loads(answer)
        assert reply["ok"] is False and reply["error"]["kind"] == "invalid_argument", reply
        s.settimeout(5)
        if closes:  # the stream cannot be trusted after a bad length: closed (reset: bytes were left unread)
            try:
                assert read_frame(s) is None
            except ConnectionResetError:
                pass
        else:  # the same connection serves the next request
            s.sendall(b"\x0e\x00\x00\x00" + b'{"op":"hello"}')
            assert json.loads(read_frame(s))["ok"]
    finally:
        s.close()
    with ipc.CacheClient(service.socket_path) as c:  # the service carries on
        assert c.stats()["leases"] == 0


def test_truncated_frame_and_early_close_leave_the_service_running(service):
    import socket
    import struct

    for data in [b"\x10\x00", struct.pack("<I", 100) + b'{"op":', b""]:
        s = socket.socket(socket.AF_UNIX)
        s.connect(service.socket_path)
        s.sendall(data)
        s.close()
    with ipc.CacheClient(service.socket_path) as c:
        assert c.stats()["leases"] == 0


CLIENT = """
import os, random, sys, time
import numpy as np
from zarrgpu import ipc
path, store, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)
want = np.arange({rows} * {cols}, dtype=np.float32).reshape({rows}, {cols})
try:
    c = ipc.CacheClient(path)
except ipc.ServiceError:
    print("SERVICE GONE", flush=True)
    os._exit(5)
held = []
while True:
    start = rng.randrange(0, {rows} - 1)
    stop = rng.randrange(start + 1, {rows} + 1)
    try:
        lease = c.read(store, "x", f"{{start}}:{{stop}}")
    except ipc.ServiceError:
        print("SERVICE GONE", flush=True)
        os._exit(5)
    except Exception as e:  # a full budget is an answer, not a failure
        if type(e).__name__ != "DeviceError":
            raise
        if held:
            try:
                held.pop(0)[0].release()
            except ipc.ServiceError:
                print("SERVICE GONE", flush=True)
                os._exit(5)
        continue
    v = np.asarray(lease)
    if not (v == want[start:stop]).all():
        print("WRONG VALUES", start, stop, flush=True)
        os._exit(3)
    held.append((lease, start, stop))
    if rng.random() < 0.3:
        try:
            held.pop(rng.randrange(len(held)))[0].release()
        except ipc.ServiceError:
            print("SERVICE GONE", flush=True)
            os._exit(5)
    for h, a, b in held:  # memory under a lease never changes
        if not (np.asarray(h) == want[a:b]).all():
            print("LEASED MEMORY CHANGED", flush=True)
            os._exit(4)
"""


def test_clients_killed_at_random_points_leave_nothing_behind(zarrgpu_bin, tmp_path, store):
    path, data = store
    svc = make_service(zarrgpu_bin, tmp_path, "20000")
    try:
        with ipc.CacheClient(svc.socket_path) as probe:
            baseline_fds = fd_count(svc.proc.pid) - 1  # the probe's connection
        code = CLIENT.format(rows=ROWS, cols=COLS)
        rng = random.Random(38)
        for round_ in range(6):
            clients = [subprocess.Popen([sys.executable, "-c", code, svc.socket_path, str(path), str(rng.randrange(1 << 30))],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                       for _ in range(4)]
            time.sleep(rng.uniform(0.3, 1.5))
            for p in clients:
                p.send_signal(rng.choice([signal.SIGKILL, signal.SIGTERM]))
            for p in clients:
                out, err = p.communicate(timeout=60)
                assert "WRONG" not in out and "CHANGED" not in out, (out, err)
                assert p.returncode < 0, (p.returncode, err)  # killed, never failed by itself
            assert svc.alive()
        with ipc.CacheClient(svc.socket_path) as c:
            wait_for(lambda: c.stats()["leases"] == 0, what="the dead clients' leases to end")
            s = c.stats()
            assert s["bytes"] <= 20000 and s["leased_bytes"] == 0
            # Only the cache's own entries stay mapped: one memfd mapping per entry.
            maps = open(f"/proc/{svc.proc.pid}/maps").read().count("memfd:zarrgpu-cache")
            assert maps == s["entries"]
            wait_for(lambda: fd_count(svc.proc.pid) - 1 <= baseline_fds + s["entries"],
                     what="the service's descriptors to return to their level")
    finally:
        svc.kill(signal.SIGTERM)


def test_service_killed_and_restarted_is_a_clear_error(zarrgpu_bin, tmp_path, store):
    path, data = store
    svc = Service(zarrgpu_bin, tmp_path / "restart").start()
    c = ipc.CacheClient(svc.socket_path)
    lease = c.read(path, "x", "0:4")
    view = np.asarray(lease)
    first = c.instance
    svc.kill(signal.SIGKILL)  # no goodbye: the socket file stays behind
    with pytest.raises(ipc.ServiceError, match="exited or restarted"):
        c.read(path, "x", "0:4")
    assert (view == data[0:4]).all()  # memory this process maps outlives the service
    with pytest.raises(ipc.ServiceError, match="no zarrgpu cache service"):
        ipc.CacheClient(svc.socket_path)
    svc.start()  # replaces the stale socket
    with ipc.CacheClient(svc.socket_path) as again:
        assert again.instance != first
        assert (np.asarray(again.read(path, "x", "0:4")) == data[0:4]).all()
    svc.kill(signal.SIGTERM)
    assert not os.path.exists(svc.socket_path)  # a clean stop removes its socket


def test_service_killed_at_random_points_under_load(zarrgpu_bin, tmp_path, store):
    """Clients in the middle of requests see a ServiceError, never wrong values or a
    hang; they keep reading what they had mapped; a restarted service serves again."""
    path, data = store
    code = CLIENT.format(rows=ROWS, cols=COLS)
    rng = random.Random(3801)
    for round_ in range(3):
        svc = Service(zarrgpu_bin, tmp_path / f"kill{round_}", "20000").start()
        clients = [subprocess.Popen([sys.executable, "-c", code, svc.socket_path, str(path), str(rng.randrange(1 << 30))],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
        time.sleep(rng.uniform(0.5, 2.0))
        svc.kill(rng.choice([signal.SIGKILL, signal.SIGTERM]))
        for p in clients:
            out, err = p.communicate(timeout=60)
            assert "WRONG" not in out and "CHANGED" not in out, (out, err)
            assert p.returncode == 5 and "SERVICE GONE" in out, (p.returncode, out, err)
        svc.start()
        with ipc.CacheClient(svc.socket_path) as c:
            assert (np.asarray(c.read(path, "x", "0:3")) == data[0:3]).all()
            assert c.stats()["leases"] == 1
        svc.kill(signal.SIGTERM)
