"""GPU: orthogonal device reads, the loader's device path against its CPU path, stream
ordering, the memory budget; with two GPUs, DDP training and a two-node launch (torchrun)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from _zarrgpu_gpu import requires_gpu

torch = pytest.importorskip("torch")
zarrgpu = pytest.importorskip("zarrgpu")
from zarrgpu.loader import Loader, Normalize, Stats  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _loader_store import LAT, LON, expected_fields, make_store  # noqa: E402

pytestmark = [requires_gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="torch without CUDA")]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=[(1, None), (4, None), (1, 8)], ids=["step_chunks", "four_step_chunks", "sharded"])
def store(tmp_path, request):
    path = tmp_path / "era5.zarr"
    make_store(path, time_chunk=request.param[0], shards=request.param[1])
    return path


def test_orthogonal_device_read_matches_numpy(store):
    _, z = expected_fields()
    a = zarrgpu.open(store, path="z")
    for key in [([3, 4, 9, 22], slice(None), slice(None), slice(None)),
                ([22, 0, 5, 5], [2, 0], slice(1, 5), slice(None, None, -1))]:
        want = z[np.ix_(*[np.asarray(k) if isinstance(k, list) else np.arange(n)[k]
                         for k, n in zip(key, z.shape)])]
        d = a.read(key, device="cuda")
        np.testing.assert_array_equal(d.get(), want)
        out = torch.empty(want.shape, dtype=torch.float32, device="cuda")
        s = torch.cuda.Stream()
        a.read(key, out=out, stream=s, device_memory_limit=64 << 20)
        torch.cuda.current_stream().wait_stream(s)
        np.testing.assert_array_equal(out.cpu().numpy(), want)


@pytest.mark.parametrize("dtype", [None, "bfloat16"])
def test_device_batches_equal_cpu_batches(store, dtype):
    stats = Stats(["t2m", "z[level=850]", "z[level=500]"], [260.0, 2100.0, 3100.0], [5.0, 60.0, 70.0])
    kw = dict(select={"level": [850, 500]}, history=2, horizon=1, stride=2, batch_size=4, seed=3, dtype=dtype,
              transforms=[Normalize(stats)])
    cpu = [b.data.clone() for b in Loader(store, ["t2m", "z"], device="cpu", **kw)]
    gpu_loader = Loader(store, ["t2m", "z"], device="cuda", **kw)
    assert gpu_loader.device.type == "cuda"
    consumer = torch.cuda.Stream()  # the training loop's stream waits on each batch's event
    with torch.cuda.stream(consumer):
        got = [b.data.clone() for b in gpu_loader]
    torch.cuda.synchronize()
    assert len(got) == len(cpu)
    for g, c in zip(got, cpu):
        assert g.is_cuda
        torch.testing.assert_close(g.cpu(), c, rtol=0, atol=0)


def test_ring_reuse_waits_for_the_consumer(store):
    """A slow consumer (a long kernel queued on its stream) still sees each batch intact."""
    ld = Loader(store, "z", history=1, horizon=1, batch_size=2, prefetch=1, device="cuda", seed=1)
    _, z = expected_fields()
    for b in ld:
        big = torch.randn(2048, 2048, device="cuda")
        for _ in range(4):
            big = big @ big / 2048  # keeps the consumer's stream busy while the loader refills
        snapshot = b.data.clone()
        torch.cuda.synchronize()
        np.testing.assert_array_equal(snapshot.cpu().numpy(), z[b.steps])


def test_memory_stays_within_the_budget(tmp_path):
    path = tmp_path / "big.zarr"
    g = zarrgpu.create_group(path)
    data = np.random.default_rng(0).standard_normal((24, 4, 181, 360)).astype(np.float32)
    a = zarrgpu.create_array(path, "data", shape=data.shape, dtype="f4", chunks=(1, 4, 181, 360),
                             dimension_names=["time", "channel", "lat", "lon"])
    a[...] = data
    del g
    torch.cuda.synchronize()
    free0, _ = torch.cuda.mem_get_info()
    budget = 256 << 20
    ld = Loader(path, "data", batch_size=4, device="cuda", memory_budget=budget)
    low = free0
    for epoch in range(2):
        ld.set_epoch(epoch)
        for b in ld:
            torch.cuda.synchronize()
            low = min(low, torch.cuda.mem_get_info()[0])
            np.testing.assert_array_equal(b.data.cpu().numpy(), data[b.steps])
    used = free0 - low
    # CUDA contexts of the read's streams and allocator rounding come on top: 64 MiB of slack.
    assert used <= budget + (64 << 20), (used, ld.footprint())


def _torchrun(args, env=None, timeout=300):
    exe = shutil.which("torchrun")
    if exe is None:
        pytest.skip("torchrun not on PATH")
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_ddp_training_with_torchrun(tmp_path):
    path = tmp_path / "era5.zarr"
    make_store(path)
    r = _torchrun(["--standalone", "--nproc-per-node=2", str(ROOT / "examples" / "train_era5.py"), str(path),
                   "--variables", "t2m,z", "--steps", "6", "--batch-size", "2", "--width", "8", "--stats-samples", "4"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 x cuda" in r.stdout


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_two_node_launch_simulated_on_localhost(tmp_path):
    path = tmp_path / "era5.zarr"
    make_store(path)
    port = str(29600 + os.getpid() % 300)
    procs = []
    for node in range(2):
        cmd = [shutil.which("torchrun") or "torchrun", "--nnodes=2", f"--node-rank={node}", "--nproc-per-node=1",
               "--master-addr=127.0.0.1", f"--master-port={port}", str(ROOT / "examples" / "train_era5.py"),
               str(path), "--variables", "t2m,z", "--steps", "4", "--batch-size", "2", "--width", "8",
               "--stats-samples", "4"]
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(node))
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env))
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), "\n".join(outs)
    assert "2 x cuda" in outs[0]
