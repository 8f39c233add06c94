"""How one batched read of N shuffled time steps scales with N and with the device-memory
limit a loader gives it: the per-call cost behind the loader's rate (issue 32).

    python3 bench/loader/read_scaling.py STORE [--steps 8 16 32 64] [--limits 0 0.55 1 2] [--repeat 5]

For each N: median seconds of `Array.read((steps, ...), out=<torch buffer>)` over random
sorted step lists, GB/s of the selection, and the same for the whole array in one call.
A limit of 0 means no limit. Prints a table (and JSON with --json PATH)."""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
import torch

import zarrgpu


def timed(fn, repeat: int) -> float:
    fn()  # warm: pooled buffers, page cache
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("store")
    p.add_argument("--array", default=None, help="array path inside the store (default: the largest)")
    p.add_argument("--steps", type=int, nargs="+", default=[8, 16, 32, 64])
    p.add_argument("--limits", type=float, nargs="+", default=[0, 0.55, 1.0, 2.0], help="GiB; 0 = none")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--json", default=None)
    p.add_argument("--no-full", action="store_true", help="skip the whole-array read")
    a = p.parse_args()
    g = zarrgpu.open(a.store)
    if isinstance(g, zarrgpu.Array):
        arr = g
    else:
        names = [a.array] if a.array else [n for n, _ in g.arrays()]
        arr = max((g[n] for n in names), key=lambda x: int(np.prod(x.shape)))
    shape, dtype = tuple(arr.shape), torch.float32 if arr.dtype == np.float32 else torch.from_numpy(np.zeros(1, arr.dtype)).dtype
    step_bytes = int(np.prod(shape[1:])) * arr.dtype.itemsize
    rng = np.random.default_rng(0)
    rows = []
    if not a.no_full:
        full = torch.empty(shape, dtype=dtype, device="cuda")
        s = timed(lambda: arr.read(out=full), a.repeat)
        rows.append({"steps": shape[0], "limit_gib": 0, "seconds": s, "gbps": full.numel() * arr.dtype.itemsize / s / 1e9,
                     "what": "whole array"})
        del full
    for n in a.steps:
        out = torch.empty((n,) + shape[1:], dtype=dtype, device="cuda")
        for lim in a.limits:
            lists = [np.sort(rng.choice(shape[0], n, replace=False)) for _ in range(a.repeat + 1)]
            it = iter(lists)
            stream = torch.cuda.Stream()
            def one():
                arr.read((next(it).astype(np.int64),) + (slice(None),) * (len(shape) - 1), out=out,
                         stream=stream, device_memory_limit=int(lim * (1 << 30)))
                stream.synchronize()
            s = timed(one, a.repeat)
            rows.append({"steps": n, "limit_gib": lim, "seconds": s, "gbps": n * step_bytes / s / 1e9, "what": "shuffled"})
        del out
    print(f"{'what':<12} {'steps':>6} {'limit GiB':>9} {'ms':>9} {'GB/s':>7}")
    for r in rows:
        print(f"{r['what']:<12} {r['steps']:>6} {r['limit_gib']:>9.2f} {r['seconds'] * 1e3:>9.2f} {r['gbps']:>7.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"store": a.store, "device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
