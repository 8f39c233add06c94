"""The Node.js client (bindings/node, a Node-API addon built here with
node-gyp): Python -> Node.js and Node.js -> Python through descriptors and
memfds passed over a Unix socket, and through the cache service, values
checked on both sides. Skips without node and node-gyp, unless
ZARRGPU_REQUIRE_NODE=1 (scripts/test.sh, after setup.sh installed them)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

from zarrgpu import ipc

from _ipc_service import Service

ROOT = Path(__file__).resolve().parents[2]
ADDON_DIR = ROOT / "bindings" / "node"


def _node_gyp() -> list[str] | None:
    if shutil.which("node-gyp"):
        return ["node-gyp"]
    bundled = Path("/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js")  # nodesource's npm
    if shutil.which("node") and bundled.exists():
        return ["node", str(bundled)]
    return None


def _unavailable(why: str):
    if os.environ.get("ZARRGPU_REQUIRE_NODE") == "1":
        pytest.fail(f"ZARRGPU_REQUIRE_NODE=1 but {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def addon(zarrgpu_bin) -> Path:
    if not shutil.which("node"):
        _unavailable("node is not installed (scripts/setup.sh installs it)")
    if os.environ.get("ZARRGPU_NODE_PREBUILT") == "1":  # the GPU machine: bench/gpu/node_addon.sh built it, no node-gyp there
        built = ADDON_DIR / "build" / "Release" / "zarrgpu_ipc.node"
        assert built.exists(), f"ZARRGPU_NODE_PREBUILT=1 but {built} is missing"
        return ADDON_DIR / "index.js"
    gyp = _node_gyp()
    if gyp is None:
        _unavailable("node-gyp is not installed (scripts/setup.sh installs it)")
    build = Path(zarrgpu_bin).resolve().parents[2]
    if not (build / "src" / "libzarrgpu.a").exists():
        _unavailable(f"no static libzarrgpu.a in {build}/src to link the addon with")
    env = dict(os.environ, ZARRGPU_BUILD=str(build))
    cache = build / "CMakeCache.txt"
    cudart = [line.split("=", 1)[1] for line in (cache.read_text().splitlines() if cache.exists() else [])
              if line.startswith("CUDA_cudart_static_LIBRARY:")]
    if cudart and cudart[0].endswith(".a") and "ZARRGPU_NODE_LIBS" not in env:
        env["ZARRGPU_NODE_LIBS"] = f"{cudart[0]} -lrt"  # a CUDA build's library links the runtime statically
    r = subprocess.run([*gyp, "rebuild", "--nodedir=/usr", "--loglevel=error"], cwd=ADDON_DIR, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return ADDON_DIR / "index.js"


def run_node(addon: Path, script: str, *args: str, pass_fds=(), timeout: float = 120) -> subprocess.CompletedProcess:
    code = f"const z = require({str(addon)!r});\nconst args = process.argv.slice(1);\n" + textwrap.dedent(script)
    return subprocess.run(["node", "-e", code, *args], pass_fds=pass_fds, capture_output=True, text=True, timeout=timeout)


def test_python_to_node_host_memory(addon):
    a = ipc.empty((3, 4), "float64")
    np.asarray(a)[...] = np.arange(12.0).reshape(3, 4) / 4
    view = a[1:, ::-2]  # a strided slice: base allocation + offset + strides
    desc, fd = ipc.export(view)
    r = run_node(addon, """
        const v = z.open(args[0], Number(args[1]));
        console.log(JSON.stringify({shape: v.shape, strides: v.strides, dtype: v.dtype, typestr: v.typestr,
                                    device: v.device, values: Array.from(v.toTypedArray()), ptr: v.pointer > 0n}));
    """, desc, str(fd), pass_fds=(fd,))
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    want = np.asarray(view)
    assert got["shape"] == list(want.shape) and got["strides"] == list(want.strides)
    assert got["dtype"] == "float64" and got["typestr"] == "<f8" and got["device"] == "cpu" and got["ptr"]
    assert got["values"] == want.ravel().tolist()


@pytest.mark.parametrize("dtype,js", [("int32", "Int32Array"), ("uint8", "Uint8Array"), ("float32", "Float32Array"),
                                      ("int64", "BigInt64Array")])
def test_node_to_python_over_a_socket(addon, dtype, js):
    parent, child = socket.socketpair()
    values = "[" + ",".join(f"{v}n" if "Big" in js else str(v) for v in range(-3, 9) if not (dtype == "uint8" and v < 0)) + "]"
    n = 12 if dtype != "uint8" else 9
    r_proc = subprocess.Popen(["node", "-e", textwrap.dedent(f"""
        const z = require({str(addon)!r});
        const a = z.empty([{n}], {dtype!r});
        a.set(new {js}({values}));
        z.sendDescriptor(Number(process.argv[1]), a);
        // Stay alive until Python has checked the values, then exit.
        require('fs').readSync(Number(process.argv[1]), Buffer.alloc(1));
    """), str(child.fileno())], pass_fds=(child.fileno(),), stderr=subprocess.PIPE, text=True)
    child.close()
    header, fds, _, _ = socket.recv_fds(parent, 4, 1)  # the fd rides on the frame's first byte
    size = int.from_bytes(header, "little")
    msg = parent.recv(size, socket.MSG_WAITALL)
    assert len(header) == 4 and len(msg) == size and fds
    b = ipc.open(msg.decode(), fds[0])
    os.close(fds[0])
    want = [v for v in range(-3, 9) if not (dtype == "uint8" and v < 0)]
    assert np.asarray(b).dtype == np.dtype(dtype)
    assert np.asarray(b).tolist() == want
    np.asarray(b)[0] = 7  # shared: Node's memory, written here
    parent.send(b"x")
    assert r_proc.wait(60) == 0, r_proc.stderr.read()


def test_node_writes_a_named_array_python_reads_it_and_back(addon, zarrgpu_bin, tmp_path):
    svc = Service(zarrgpu_bin, tmp_path / "svc").start()
    try:
        proc = subprocess.Popen(["node", "-e", f"const z = require({str(addon)!r});\nconst args = process.argv.slice(1);\n" + textwrap.dedent("""
            const c = z.connect(args[0]);
            const w = c.create('from-node', [2, 3], 'float32');
            w.set(new Float32Array([0.5, 1.5, 2.5, 3.5, 4.5, 5.5]));
            c.publish('from-node');
            console.log(JSON.stringify({memory: c.memory, instance: c.instance, lease: w.lease}));
            require('fs').readSync(0, Buffer.alloc(1));
            const back = c.open('from-python');
            console.log(JSON.stringify({values: Array.from(back.toTypedArray()), readOnly: back.readOnly, dtype: back.dtype}));
            c.release(back);
            try { c.open('nothing'); } catch (e) { console.log(JSON.stringify({code: e.code})); }
            c.close();
        """), svc.socket_path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = json.loads(proc.stdout.readline())
        assert first["memory"] == "host" and first["lease"]
        with ipc.CacheClient(svc.socket_path) as c:
            assert c.instance == first["instance"]
            seen = c.open("from-node")
            assert np.asarray(seen).tolist() == [[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]]
            w = c.create("from-python", (4,), "int16")
            np.asarray(w)[...] = [-2, -1, 0, 32767]
            c.publish("from-python")
            proc.stdin.write("x")
            proc.stdin.flush()
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            lines = [json.loads(line) for line in out.splitlines()]
            assert lines[0] == {"values": [-2, -1, 0, 32767], "readOnly": True, "dtype": "int16"}
            assert lines[1] == {"code": "not_found"}
    finally:
        svc.kill(signal.SIGTERM)


def test_node_reads_through_the_cache_and_gets_clear_errors(addon, zarrgpu_bin, tmp_path):
    zarr = pytest.importorskip("zarr")
    data = (np.arange(60, dtype=np.uint16) * 3).reshape(6, 10)
    a = zarr.create_array(str(tmp_path / "s.zarr"), name="v", shape=data.shape, chunks=(4, 4), dtype="uint16")
    a[...] = data
    svc = Service(zarrgpu_bin, tmp_path / "svc").start()
    try:
        r = run_node(addon, """
            const c = z.connect(args[0]);
            const l = c.read(args[1], 'v', '1:5,2:9:3');
            const again = c.read(args[1], 'v', '1:5,2:9:3');
            const out = {shape: l.shape, values: Array.from(l.toTypedArray()), hit: [l.hit, again.hit], ro: l.readOnly};
            try { c.read(args[1], 'missing'); } catch (e) { out.missing = e.code; }
            try { z.open('{"zarrgpu_ipc": 2}'); } catch (e) { out.version = e.code; }
            try { l.set(new Uint16Array(12)); } catch (e) { out.write = e.code; }
            console.log(JSON.stringify(out));
        """, svc.socket_path, str(tmp_path / "s.zarr"))
        assert r.returncode == 0, r.stderr
        got = json.loads(r.stdout)
        assert got["shape"] == [4, 3] and got["values"] == data[1:5, 2:9:3].ravel().tolist()
        assert got["hit"] == [False, True] and got["ro"] is True
        assert got["missing"] == "not_found" and got["version"] == "unsupported" and got["write"] == "invalid_argument"
    finally:
        svc.kill(signal.SIGTERM)


def test_python_device_array_to_node(addon, tmp_path):
    """On a GPU: a zarrgpu read's output (legacy CUDA IPC handle) opens in Node.js,
    its pointer is a device pointer and toTypedArray() copies the values."""
    import zarrgpu

    if not zarrgpu.cuda_available():
        pytest.skip("no CUDA GPU")
    from _zarrgpu_gpu import make_store

    _, data = make_store(tmp_path / "s.zarr")
    dev = zarrgpu.open(str(tmp_path / "s.zarr")).read(device="cuda")
    desc, fd = ipc.export(dev)
    assert fd is None
    r = run_node(addon, """
        const v = z.open(args[0]);
        console.log(JSON.stringify({device: v.device, shape: v.shape, values: Array.from(v.toTypedArray())}));
    """, desc)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["device"] == "cuda:0" and got["shape"] == list(data.shape)
    assert got["values"] == data.ravel().tolist()


def test_node_device_array_to_python(addon):
    """On a GPU: Node.js allocates device memory of its own (a VMM allocation),
    writes it, and sends its descriptor and fd to Python, which opens it
    zero-copy (DLPack) and reads Node's values."""
    import zarrgpu

    if not zarrgpu.cuda_available():
        pytest.skip("no CUDA GPU")
    parent, child = socket.socketpair()
    node = subprocess.Popen(["node", "-e", textwrap.dedent(f"""
        const z = require({str(addon)!r});
        const a = z.empty([3, 4], 'float32', 'cuda:0');
        a.set(Float32Array.from({{length: 12}}, (_, i) => i / 4));
        z.sendDescriptor(Number(process.argv[1]), a);
        require('fs').readSync(Number(process.argv[1]), Buffer.alloc(1));
    """), str(child.fileno())], pass_fds=(child.fileno(),), stderr=subprocess.PIPE, text=True)
    child.close()
    header, fds, _, _ = socket.recv_fds(parent, 4, 1)
    msg = parent.recv(int.from_bytes(header, "little"), socket.MSG_WAITALL)
    d = json.loads(msg)
    assert d["memory"] == "device" and d["handle"] == {"kind": "fd"} and fds
    b = ipc.open(msg.decode(), fds[0])
    os.close(fds[0])
    want = (np.arange(12, dtype=np.float32) / 4).reshape(3, 4)
    assert (b.get() == want).all()
    assert b.__dlpack_device__()[0] == 2  # kDLCUDA
    try:
        import torch

        if torch.cuda.is_available():
            assert (torch.from_dlpack(b).cpu().numpy() == want).all()
    except ImportError:
        pass
    del b
    parent.send(b"x")
    assert node.wait(60) == 0, node.stderr.read()
