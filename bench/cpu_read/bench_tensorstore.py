"""Full-array reads into host memory with TensorStore, the peer bench_cpu_read is measured against.

    python bench_tensorstore.py STORE [--threads N] [--repeat R] [--json]

Reads every array of rank >= 3 under the group STORE (format 2 or 3) and prints
the median decoded GB/s, like bench_cpu_read.
"""
import argparse
import json
import os
import statistics
import sys
import time

import tensorstore as ts


def arrays_in(store):
    """(path, driver) of every array of rank >= 3 under `store`."""
    found = []
    for dirpath, _dirs, files in os.walk(store):
        rel = os.path.relpath(dirpath, store)
        rel = "" if rel == "." else rel
        if "zarr.json" in files:
            with open(os.path.join(dirpath, "zarr.json")) as f:
                doc = json.load(f)
            if doc.get("node_type") == "array" and len(doc["shape"]) >= 3:
                found.append((rel, "zarr3"))
        elif ".zarray" in files:
            with open(os.path.join(dirpath, ".zarray")) as f:
                doc = json.load(f)
            if len(doc["shape"]) >= 3:
                found.append((rel, "zarr"))
    return sorted(found)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("store")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()

    ctx = ts.Context({
        "data_copy_concurrency": {"limit": a.threads},
        "file_io_concurrency": {"limit": max(a.threads, 32)},
    })
    handles = []
    for path, driver in arrays_in(a.store):
        spec = {"driver": driver, "kvstore": {"driver": "file", "path": os.path.join(os.path.abspath(a.store), path)}}
        handles.append(ts.open(spec, context=ctx, read=True).result())
    if not handles:
        sys.exit(f"no array of rank >= 3 under {a.store}")
    nbytes = sum(h.dtype.numpy_dtype.itemsize * h.domain.size for h in handles)

    rates = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        for h in handles:
            h.read().result()
        rates.append(nbytes / (time.perf_counter() - t0) / 1e9)
    rate = statistics.median(rates)
    if a.json:
        print(json.dumps({"store": a.store, "arrays": len(handles), "decoded_bytes": nbytes,
                          "threads": a.threads, "repeat": a.repeat, "tensorstore_gbps": round(rate, 3)}))
    else:
        print(f"{a.store}: {len(handles)} arrays, {nbytes / 1e9:.2f} GB decoded, {a.threads} threads")
        print(f"  tensorstore full read  {rate:8.2f} GB/s (median of {a.repeat})")


if __name__ == "__main__":
    main()
