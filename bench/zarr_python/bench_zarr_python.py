"""Issue 37's benchmark: the ERA5-like Zstd store (bench/gpu_read's era5_zstd_*.zarr, array
"data", one time step per chunk) read through zarr-python into GPU buffers, whole and as random
batches of time steps, in the issue's five rows:

  1 zarr-python, zarr.config.enable_gpu(), LocalStore (as it is)
  2 + KvikIO's GDSStore
  3 + nvCOMP's Python Zstd codec (nvcomp_zstd.py, as zarr-python PR #2863 wires it)
  4 + zarrgpu.zarr.CodecPipeline (instead of the nvCOMP codec)
  5 zarrgpu's own Python API: zarrgpu.open(...).read(sel, device="cuda")

Rows 2-4 use the GDSStore when KvikIO is installed, else LocalStore (the JSON says which).
Every row's first batch is compared with row 5's. Warm page cache (a first read warms it).

  python3 bench/zarr_python/bench_zarr_python.py STORE [--out bench/results] [--repeats 3]
          [--batches 20] [--batch-steps 8] [--rows 1,2,3,4,5] [--batch-size 64]

Writes zarr_python.json and zarr_python.md into --out."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "gpu_read"))
from run_gpu_read import gpu_name  # noqa: E402

ROWS = {
    "1": "zarr-python enable_gpu(), LocalStore",
    "2": "+ KvikIO GDSStore",
    "3": "+ nvCOMP Python Zstd codec (PR #2863 wiring)",
    "4": "+ zarrgpu.zarr.CodecPipeline",
    "5": "zarrgpu Python API, device='cuda'",
}


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def gds_store(path):
    try:
        from kvikio.zarr import GDSStore
    except ImportError as e:
        return None, f"KvikIO not installed ({e}); LocalStore"
    return GDSStore(path), "kvikio.zarr.GDSStore"


def zarr_reader(row, path, batch_size):
    """(read(selection) -> cupy array, description, config dict) for rows 1-4."""
    import zarr

    config = {}
    store, store_name = zarr.storage.LocalStore(path, read_only=True), "LocalStore"
    if row in ("2", "3", "4"):
        gds, why = gds_store(path)
        if gds is not None:
            store, store_name = gds, why
        else:
            store_name = why
    if row == "3":
        import nvcomp_zstd  # noqa: F401 - registers NvcompZstdCodec
        config = {"codecs.zstd": "nvcomp_zstd.NvcompZstdCodec", "codec_pipeline.batch_size": batch_size}
    if row == "4":
        import zarrgpu.zarr  # noqa: F401 - registers the pipeline
        config = {"codec_pipeline.path": "zarrgpu.zarr.CodecPipeline"}
    return store, store_name, config


def run_row(row, a, shape, batches):
    import cupy
    import zarr

    if row == "5":
        import zarrgpu

        arr = zarrgpu.open(a.store, path="data")

        def read_whole():
            return arr.read(None, device="cuda")

        def read_batch(steps):
            return arr.read((steps,), device="cuda")

        info = {"store": "zarrgpu (file://)", "config": {}}
        return time_reads(read_whole, read_batch, batches, a, cupy), info
    store, store_name, config = zarr_reader(row, os.path.join(a.store), a.batch_size)
    routes_before = read_routes()
    with zarr.config.set(config), zarr.config.enable_gpu():
        arr = zarr.open_array(store=store, path="data", mode="r")

        def read_whole():
            return arr[...]

        def read_batch(steps):
            return arr.oindex[steps]

        info = {"store": store_name, "config": config, "pipeline": type(arr._async_array.codec_pipeline).__name__}
        timed = time_reads(read_whole, read_batch, batches, a, cupy)
    after = read_routes()
    info["routes"] = {k: after.get(k, 0) - routes_before.get(k, 0) for k in after}
    return timed, info


def read_routes():
    """zarrgpu.zarr's count of reads by path and through the store (row 4 should be all by path)."""
    try:
        import zarrgpu.zarr
    except ImportError:
        return {}
    return zarrgpu.zarr.read_routes()


def as_cupy(x, cupy):
    return x if isinstance(x, cupy.ndarray) else cupy.asarray(x)


def time_reads(read_whole, read_batch, batches, a, cupy):
    first = as_cupy(read_batch(batches[0]), cupy)  # warms; kept for the comparison
    whole, nbytes = [], 0
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        x = read_whole()
        cupy.cuda.Device().synchronize()
        whole.append(time.perf_counter() - t0)
        nbytes = int(x.nbytes)
        del x
    per_batch = []
    batch_bytes = 0
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        batch_bytes = 0
        for steps in batches:
            y = read_batch(steps)
            batch_bytes += int(y.nbytes)
        cupy.cuda.Device().synchronize()
        per_batch.append(time.perf_counter() - t0)
    return {
        "whole_seconds": median(whole), "whole_gbps": nbytes / median(whole) / 1e9, "whole_bytes": nbytes,
        "batches_seconds": median(per_batch), "batches_gbps": batch_bytes / median(per_batch) / 1e9,
        "batch_bytes_total": batch_bytes,
    }, first


def write_markdown(res, path):
    R = res["rows"]

    def cell(row, key):
        r = R.get(row, {})
        return f"{r[key]:.2f}" if key in r else r.get("skipped", "—")[:60]

    lines = [f"# zarr-python into GPU buffers (issue 37), {res['date']}, {res['gpu']}", "",
             f"Store: `{res['store']}` (array `data`, shape {res['shape']}, {res['dtype']}, chunks {res['chunks']}); "
             f"whole array, and {res['batches']} random batches of {res['batch_steps']} time steps "
             f"(orthogonal indexing); GB/s of decoded data landed on the GPU, median of {res['repeats']}, warm "
             f"page cache. Command: `{res['command']}`", "",
             "| row | what | store | whole GB/s | batches GB/s | matches row 5 |", "|---|---|---|---|---|---|"]
    for row, what in ROWS.items():
        r = R.get(row, {})
        lines.append(f"| {row} | {what} | {r.get('store', '—')} | {cell(row, 'whole_gbps')} | "
                     f"{cell(row, 'batches_gbps')} | {r.get('matches', '—')} |")
    routes = R.get("4", {}).get("routes")
    if routes is not None:
        lines += ["", f"Row 4's reads: {routes.get('by_path', 0)} by path (zarrgpu read the files), "
                      f"{routes.get('through_store', 0)} through zarr-python's store."]
    lines += ["", "Goals (issue 37): (4) >= 5x (1), >= 1.5x (3), within 15% of (5).", ""]
    for key in ("whole_gbps", "batches_gbps"):
        r4 = R.get("4", {}).get(key)
        parts = []
        for other, goal in (("1", "5x"), ("3", "1.5x"), ("5", "0.85x")):
            ro = R.get(other, {}).get(key)
            if r4 and ro:
                parts.append(f"(4)/({other}) = {r4 / ro:.2f} (goal {goal})")
        if parts:
            lines.append(f"- {key.split('_')[0]}: " + ", ".join(parts))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("store")
    p.add_argument("--out", default=os.path.join(HERE, "..", "results"))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--batches", type=int, default=20)
    p.add_argument("--batch-steps", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=64, help="row 3: zarr-python's codec_pipeline.batch_size")
    p.add_argument("--rows", default="1,2,3,4,5")
    a = p.parse_args()
    import cupy
    import zarr

    meta = zarr.open_array(zarr.storage.LocalStore(a.store, read_only=True), path="data", mode="r")
    rng = random.Random(0)
    batches = [sorted(rng.sample(range(meta.shape[0]), a.batch_steps)) for _ in range(a.batches)]
    res = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "gpu": gpu_name(),
           "store": a.store, "shape": list(meta.shape), "dtype": str(meta.dtype), "chunks": list(meta.chunks),
           "batches": a.batches, "batch_steps": a.batch_steps, "repeats": a.repeats,
           "command": " ".join([os.path.basename(sys.executable), *sys.argv]), "rows": {}}
    firsts = {}
    for row in [r for r in a.rows.split(",") if r]:
        t0 = time.time()
        try:
            (timing, first), info = run_row(row, a, meta.shape, batches)
            res["rows"][row] = {**timing, **info}
            firsts[row] = first
        except Exception as e:  # a row's failure (a peer not installed) is a result, not a crash
            res["rows"][row] = {"skipped": f"{type(e).__name__}: {e}"[:300]}
        print(f"row {row} ({ROWS[row]}): {json.dumps(res['rows'][row])[:300]} [{time.time() - t0:.0f}s]", flush=True)
        cupy.get_default_memory_pool().free_all_blocks()
    if "5" in firsts:
        for row, first in firsts.items():
            res["rows"][row]["matches"] = bool(cupy.array_equal(first, firsts["5"]))
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "zarr_python.json"), "w") as f:
        json.dump(res, f, indent=1)
    write_markdown(res, os.path.join(a.out, "zarr_python.md"))
    print(open(os.path.join(a.out, "zarr_python.md")).read())


if __name__ == "__main__":
    main()
