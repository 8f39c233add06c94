"""The issue-4 benchmark: ERA5-like float32 read into GPU memory, in the
issue's three variants (zstd-3 one time step per chunk, sharded, raw), full
array and random pairs of consecutive time steps, warm and cold, zarrgpu
(with its time breakdown) against its peers and the machine's limits.

  python3 bench/gpu_read/run_gpu_read.py --bin build --gb 8 --data /tmp/zarrgpu_bench --out OUT --budget 330

Order, so that a short budget cuts repeats, pairs and cold runs, never a
variant or a peer: limits; zarrgpu full warm on every variant (zstd: auto,
forced GPU, forced CPU); the peers full warm on the zstd store; pairs with a
time cap per run (the JSON says how many ran); cold runs last.
Writes gpu_read.json, gpu_read.md and gpu_read.png into OUT, nothing else.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(cmd, timeout=600, env=None):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"skipped": f"timed out after {timeout:.0f}s"}
    if r.returncode != 0:
        return {"skipped": f"exit {r.returncode}: {r.stderr.strip()[-400:]}"}
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"skipped": f"no JSON: {r.stdout[-200:]} {r.stderr[-200:]}"}


def drop_caches():
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True).stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        return "unknown GPU"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build")
    p.add_argument("--gb", type=float, default=8.0, help="per variant")
    p.add_argument("--channels", type=int, default=4)
    p.add_argument("--data", default="/tmp/zarrgpu_bench")
    p.add_argument("--out", default=os.path.join(HERE, "..", "results"))
    p.add_argument("--repeat", type=int, default=3, help="cut to 1 when the budget is short")
    p.add_argument("--pairs", type=int, default=100)
    p.add_argument("--pairs-seconds", type=float, default=8.0, help="cap on one pairs run (zarrgpu or a peer)")
    p.add_argument("--variants", default="zstd,sharded,raw")
    p.add_argument("--peers", default="tensorstore,zarr-gpu,zarr-gds")
    p.add_argument("--budget", type=float, default=330, help="seconds for the whole script")
    a = p.parse_args()
    t_start = time.time()
    deadline = t_start + a.budget

    def left():
        return deadline - time.time()

    def log(msg):
        print(f"[{time.time() - t_start:5.0f}s] {msg}", flush=True)

    zarrgpu = os.path.join(a.bin, "tools", "zarrgpu", "zarrgpu")
    bench = os.path.join(a.bin, "bench", "gpu_read", "bench_gpu_read")
    step_bytes = a.channels * 721 * 1440 * 4
    steps = max(3, int(a.gb * 1e9 // step_bytes))
    os.makedirs(a.data, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    variants = [v for v in a.variants.split(",") if v]
    peers = [q for q in a.peers.split(",") if q]
    stores, gen_s = {}, {}
    cold_ok = drop_caches()
    res = {"date": datetime.date.today().isoformat(), "gpu": gpu_name(), "time_steps": steps, "step_bytes": step_bytes,
           "variants": variants, "stores": stores, "generate_seconds": gen_s, "cold_available": cold_ok,
           "budget_seconds": a.budget, "command": " ".join(sys.argv), "results": {}, "notes": []}
    R = res["results"]

    def store_of(v):
        if v not in stores:
            path = os.path.join(a.data, f"era5_{v}_{steps}.zarr")
            if not os.path.exists(path):
                t0 = time.time()
                subprocess.run([zarrgpu, "generate", "era5", path, "--time", str(steps), "--channels", str(a.channels),
                                "--lat", "721", "--lon", "1440", "--variant", v, "--quiet"], check=True)
                gen_s[v] = time.time() - t0
                log(f"generated {path} in {gen_s[v]:.1f}s")
            stores[v] = path
        return stores[v]

    def repeat():
        return a.repeat if left() > 240 else 1

    def ours(key, v, mode, env=None, cold=False):
        if left() < 5:
            R[key] = {"skipped": "time budget"}
            return
        cmd = [bench, store_of(v), "--mode", mode, "--repeat", "1" if cold else str(repeat())]
        if mode == "pairs":
            cmd += ["--pairs", str(a.pairs), "--max-seconds", str(a.pairs_seconds)]
        if cold:
            drop_caches()
        R[key] = run_json(cmd, timeout=max(10, left()), env=dict(os.environ, **(env or {})))
        log(f"{key}: {gbps(R[key])}")

    def peer(key, q, mode, cold=False):
        if left() < 10:
            R[key] = {"skipped": "time budget"}
            return
        cmd = [sys.executable, os.path.join(HERE, "peers.py"), q, store_of("zstd"), mode, "--pairs", str(a.pairs),
               "--max-seconds", str(a.pairs_seconds if mode == "pairs" else 0), "--repeat", "1"]
        if cold:
            drop_caches()
        # One peer may not eat the others' time: at most a share of what is left.
        R[key] = run_json(cmd, timeout=max(10, min(left(), 120)))
        log(f"{key}: {gbps(R[key])}")

    # 1. limits of the machine (also warms the page cache for the zstd store).
    store_of("zstd")
    if cold_ok:
        # The store was just written or read: without the drop the "disk" is the page cache.
        # One reader (sequential), then 16 at a time (our reads: a thread per chunk).
        for readers, key in ((1, "limit_cold_disk"), (16, "limit_cold_disk_16")):
            drop_caches()
            R[key] = run_json([sys.executable, os.path.join(HERE, "peers.py"), "cold-disk", store_of("zstd"),
                               "--readers", str(readers)], timeout=max(10, min(left(), 60)))
    R["limits"] = run_json([bench, store_of("zstd"), "--limits", "--threads", "16"], timeout=max(10, left()))
    # 2. zarrgpu, full array warm, every variant; zstd with each decoder choice.
    for v in variants:
        ours(f"zarrgpu_{v}_full_warm", v, "full")
        if v == "zstd":
            ours("zarrgpu_gpuzstd_zstd_full_warm", v, "full", {"ZARRGPU_GPU_ZSTD": "1"})
            ours("zarrgpu_cpuzstd_zstd_full_warm", v, "full", {"ZARRGPU_GPU_ZSTD": "0"})
    # 3. peers, full array warm, on the zstd store.
    for q in peers:
        peer(f"{q}_zstd_full_warm", q, "full")
    # 4. pairs, capped in time.
    for v in variants:
        ours(f"zarrgpu_{v}_pairs_warm", v, "pairs")
    for q in peers:
        peer(f"{q}_zstd_pairs_warm", q, "pairs")
    # 5. cold runs, while time is left.
    if cold_ok:
        for v in variants:
            ours(f"zarrgpu_{v}_full_cold", v, "full", cold=True)
        for q in peers:
            peer(f"{q}_zstd_full_cold", q, "full", cold=True)
    res["seconds"] = time.time() - t_start
    if left() < 0:
        res["notes"].append(f"ran {-left():.0f}s past the budget")

    with open(os.path.join(a.out, "gpu_read.json"), "w") as f:
        json.dump(res, f, indent=1)
    write_markdown(res, os.path.join(a.out, "gpu_read.md"))
    plot(res, os.path.join(a.out, "gpu_read.png"))
    print(open(os.path.join(a.out, "gpu_read.md")).read())


def gbps(r):
    if not isinstance(r, dict) or "skipped" in r:
        return None
    return r.get("zarrgpu_gbps", r.get("gbps"))


ROWS = [("zarrgpu", "zarrgpu (zstd where the rule says: ZARRGPU_GPU_ZSTD=auto)"),
        ("zarrgpu_gpuzstd", "zarrgpu, GPU zstd forced (=1)"), ("zarrgpu_cpuzstd", "zarrgpu, CPU zstd forced (=0)"),
        ("tensorstore", "TensorStore -> host -> cupy"), ("zarr-gpu", "zarr-python 3 enable_gpu()"),
        ("zarr-gds", "zarr-python 3 + KvikIO GDSStore")]
COLS = [("full", "warm"), ("full", "cold"), ("pairs", "warm"), ("pairs", "cold")]


def cell(r):
    g = gbps(r)
    if g is None:
        return ("skipped: " + r["skipped"][:60]) if isinstance(r, dict) and "skipped" in r else "-"
    done = r.get("pairs_done", r.get("selections_done"))
    return f"{g:.2f}" + (f" ({done} pairs)" if done is not None and r.get("mode", "pairs") == "pairs" and done else "")


def write_markdown(res, path):
    R = res["results"]
    lines = [f"# GPU read benchmark ({res['date']}, {res['gpu']})", "",
             f"`{res['command']}`: {res['time_steps']} time steps of {res['step_bytes'] / 1e6:.1f} MB float32 per "
             f"variant (zstd: zstd-3 one step per chunk; sharded; raw: uncompressed), stores "
             + ", ".join(f"`{p}`" for p in res["stores"].values()) + ". GB/s of decoded data landed in GPU memory "
             f"(median of the repeats; pairs runs stop after a time cap and say how many pairs ran). "
             f"Script time {res.get('seconds', 0):.0f}s of a {res['budget_seconds']:.0f}s budget.", "",
             "| reader | variant | full warm | full cold | pairs warm | pairs cold |",
             "| --- | --- | --- | --- | --- | --- |"]
    for key, label in ROWS:
        for v in res["variants"]:
            rs = [R.get(f"{key}_{v}_{m}_{t}") for m, t in COLS]
            if all(r is None for r in rs):
                continue
            lines.append(f"| {label} | {v} | " + " | ".join(cell(r) for r in rs) + " |")
    L = R.get("limits", {})
    lines += ["", "Limits: " + ", ".join(
        [f"pinned H2D {L.get('pinned_h2d_gbps', 0):.1f} GB/s",
         f"pread from page cache ({L.get('pread_threads', 16)} threads) {L.get('pread_page_cache_gbps', 0):.1f} GB/s (stored bytes)",
         f"libzstd on {L.get('libzstd_threads', '?')} cores {L.get('libzstd_all_cores_gbps', 0):.1f} GB/s (decoded)",
         f"cold disk {gbps(R.get('limit_cold_disk')) or 0:.2f} GB/s with one reader, "
         f"{gbps(R.get('limit_cold_disk_16')) or 0:.2f} with 16 (stored bytes)"]), "",
              "zarrgpu's breakdown (last run of each): I/O = host fetch wall time (pread + CPU decoding), "
              "H2D, GPU decode and placement are GPU times from events; stored = bytes read from the store over "
              "the total (for cold runs, against the disk's limit above). Each zarrgpu process pins its staging "
              "ring before the timed reads (engine::prepare_device_read, as a loader does at start; its time "
              "is given), so that a cold run times the reads, not the pinning.", ""]
    for key in sorted(R):
        r = R[key]
        s = r.get("stats") if isinstance(r, dict) else None
        if not s:
            continue
        zstd = ""
        if s.get("decoder_codec"):
            zstd = (f"; {s['decoder_codec']}: {s['decoder_gpu_chunks']} chunks on the GPU, "
                    f"{s['decoder_cpu_chunks']} on CPU threads ({s['decoder_rule']})")
        stored = s["bytes_read"] / s["seconds_total"] / 1e9 if s.get("seconds_total") else 0
        prepared = f"; staging pinned in {r['seconds_prepare']:.2f}s first" if "seconds_prepare" in r else ""
        lines.append(f"- {key}: total {s['seconds_total']:.3f}s (stored {stored:.2f} GB/s), I/O {s['seconds_io']:.3f}s "
                     f"(read threads {s['read_thread_seconds']:.1f}s, CPU decode threads {s['cpu_decode_thread_seconds']:.1f}s), "
                     f"H2D {s['seconds_h2d']:.3f}s, GPU decode {s['seconds_gpu_decode']:.3f}s, "
                     f"placement {s['seconds_place']:.3f}s; {s['batches']} batches; io path {s['io_path']}{zstd}{prepared}")
    if res.get("generate_seconds"):
        lines += ["", "Generated this run: " + ", ".join(f"{v} {t:.0f}s" for v, t in res["generate_seconds"].items())]
    for n in res.get("notes", []):
        lines += ["", f"Note: {n}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def plot(res, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    R = res["results"]
    bars = [(k, v) for k, _ in ROWS for v in res["variants"] if any(R.get(f"{k}_{v}_{m}_{t}") for m, t in COLS)]
    fig, ax = plt.subplots(figsize=(12, 5))
    w = 0.8 / max(1, len(bars))
    for i, (k, v) in enumerate(bars):
        vals = [gbps(R.get(f"{k}_{v}_{m}_{t}")) or 0 for m, t in COLS]
        ax.bar([c + i * w for c in range(len(COLS))], vals, w, label=f"{k} {v}")
    L = R.get("limits", {})
    for val, lab in ((L.get("libzstd_all_cores_gbps"), "libzstd all cores"), (L.get("pinned_h2d_gbps"), "pinned H2D")):
        if val:
            ax.axhline(val, ls="--", lw=0.8, color="gray")
            ax.text(len(COLS) - 0.5, val, lab, fontsize=7, va="bottom")
    ax.set_xticks([c + 0.4 - w / 2 for c in range(len(COLS))])
    ax.set_xticklabels([f"{m} {t}" for m, t in COLS])
    ax.set_ylabel("GB/s decoded into GPU memory")
    ax.set_title(f"ERA5-like float32 (zstd, sharded, raw), {res['gpu']}, {res['date']}")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
