"""Peers for the GPU read benchmark, one per process call, JSON on stdout.

  peers.py tensorstore STORE MODE [--pairs N] [--repeat R]   TensorStore to host, cupy.asarray to the GPU
  peers.py zarr-gpu STORE MODE [...]                         zarr-python 3, zarr.config.enable_gpu()
  peers.py zarr-gds STORE MODE [...]                         the same through KvikIO's GDSStore
  peers.py cold-disk STORE [--readers N]                     raw read rate of the chunk files, N at a time

Each prints {"gbps": ...} (decoded GB/s landed on the GPU, median) or
{"skipped": "why"} when the peer is not installed.
"""
import argparse
import json
import os
import random
import sys
import time


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def timed(fn, repeat):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        nbytes = fn()
        out.append(nbytes / (time.perf_counter() - t0) / 1e9)
    return median(out)


DONE = {"selections": 0}


def capped(sels, max_seconds):
    """The selections, stopping once max_seconds have passed (0: no cap); counts how many ran."""
    t0 = time.perf_counter()
    DONE["selections"] = 0
    for s in sels:
        if max_seconds and DONE["selections"] and time.perf_counter() - t0 > max_seconds:
            return
        DONE["selections"] += 1
        yield s


def selections(shape, mode, pairs, seed=1):
    if mode == "full":
        return [slice(None)]
    rng = random.Random(seed)
    return [slice(t, t + 2) for t in (rng.randrange(shape[0] - 1) for _ in range(pairs))]


def tensorstore_peer(a):
    import cupy
    import tensorstore as ts
    arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": os.path.join(a.store, "data")}}).result()
    sels = selections(arr.shape, a.mode, a.pairs)

    def run():
        n = 0
        for s in capped(sels, a.max_seconds):
            g = cupy.asarray(arr[s].read().result())
            n += g.nbytes
        cupy.cuda.Device().synchronize()
        return n
    return {"gbps": timed(run, a.repeat), "selections_done": DONE["selections"]}


def zarr_peer(a, gds):
    import cupy
    import zarr
    if gds:
        from kvikio.zarr import GDSStore
        store = GDSStore(a.store)
    else:
        store = zarr.storage.LocalStore(a.store)
    with zarr.config.enable_gpu():
        arr = zarr.open_array(store=store, path="data", mode="r")
        sels = selections(arr.shape, a.mode, a.pairs)

        def run():
            n = 0
            for s in capped(sels, a.max_seconds):
                g = arr[s]
                n += g.nbytes
            cupy.cuda.Device().synchronize()
            return n
        return {"gbps": timed(run, a.repeat), "type": type(arr[0:1]).__module__,
                "selections_done": DONE["selections"]}


def cold_disk(a):
    """Reads every chunk file once, --readers files at a time (16 MiB reads),
    after the caller dropped the page cache: what the disk delivers to
    readers like ours (a thread per file), in stored bytes."""
    from concurrent.futures import ThreadPoolExecutor

    paths = [os.path.join(root, f) for root, _, files in os.walk(os.path.join(a.store, "data")) for f in files]

    def read_all(path):
        n = 0
        with open(path, "rb", buffering=0) as fh:
            while True:
                b = fh.read(16 << 20)
                if not b:
                    return n
                n += len(b)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, a.readers)) as pool:
        total = sum(pool.map(read_all, paths))
    return {"gbps": total / (time.perf_counter() - t0) / 1e9, "bytes": total, "readers": a.readers}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("peer")
    p.add_argument("store")
    p.add_argument("mode", nargs="?", default="full")
    p.add_argument("--pairs", type=int, default=100)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--max-seconds", type=float, default=0, help="per repeat; stop selections past it (0: no cap)")
    p.add_argument("--readers", type=int, default=1, help="cold-disk: files read at a time")
    a = p.parse_args()
    try:
        if a.peer == "tensorstore":
            r = tensorstore_peer(a)
        elif a.peer == "zarr-gpu":
            r = zarr_peer(a, gds=False)
        elif a.peer == "zarr-gds":
            r = zarr_peer(a, gds=True)
        elif a.peer == "cold-disk":
            r = cold_disk(a)
        else:
            r = {"skipped": f"unknown peer {a.peer}"}
    except ImportError as e:
        r = {"skipped": f"not installed: {e}"}
    except Exception as e:  # a peer's failure is a result to report, not a crash of the benchmark
        r = {"skipped": f"{type(e).__name__}: {e}"}
    print(json.dumps(r))


if __name__ == "__main__":
    sys.exit(main())
