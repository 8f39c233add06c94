"""The issue-4 benchmark: ERA5-like float32 (zstd-3, one time step per chunk)
read into GPU memory, full array and 100 random pairs of consecutive time
steps, warm and cold, zarrgpu against its peers and the machine's limits.

  python3 bench/gpu_read/run_gpu_read.py --bin build --gb 8 --data /tmp/zarrgpu_bench --out OUT

Writes gpu_read.json, gpu_read.md and gpu_read.png into OUT.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(cmd, timeout=600):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
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
    p.add_argument("--gb", type=float, default=8.0)
    p.add_argument("--channels", type=int, default=4)
    p.add_argument("--data", default="/tmp/zarrgpu_bench")
    p.add_argument("--out", default=os.path.join(HERE, "..", "results"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--pairs", type=int, default=100)
    p.add_argument("--peers", default="tensorstore,zarr-gpu,zarr-gds")
    p.add_argument("--budget", type=float, default=330, help="seconds; later peers are skipped past it")
    a = p.parse_args()
    t_start = time.time()

    zarrgpu = os.path.join(a.bin, "tools", "zarrgpu", "zarrgpu")
    bench = os.path.join(a.bin, "bench", "gpu_read", "bench_gpu_read")
    step_bytes = a.channels * 721 * 1440 * 4
    steps = max(3, int(a.gb * 1e9 // step_bytes))
    os.makedirs(a.data, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    store = os.path.join(a.data, f"era5_zstd_{steps}.zarr")
    gen_s = 0.0
    if not os.path.exists(store):
        t0 = time.time()
        subprocess.run([zarrgpu, "generate", "era5", store, "--time", str(steps), "--channels", str(a.channels),
                        "--lat", "721", "--lon", "1440", "--variant", "zstd", "--quiet"], check=True)
        gen_s = time.time() - t0
        print(f"generated {store} ({steps} steps) in {gen_s:.1f}s", flush=True)

    cold_ok = drop_caches()
    res = {"date": datetime.date.today().isoformat(), "gpu": gpu_name(), "store": store, "time_steps": steps,
           "step_bytes": step_bytes, "generate_seconds": gen_s, "cold_available": cold_ok,
           "command": " ".join(sys.argv), "results": {}}
    R = res["results"]
    if cold_ok:
        R["limit_cold_disk"] = run_json([sys.executable, os.path.join(HERE, "peers.py"), "cold-disk", store])
    R["limits"] = run_json([bench, store, "--limits", "--threads", "16"])  # also warms the page cache

    def ours(mode, cold):
        cmd = [bench, store, "--mode", mode, "--pairs", str(a.pairs), "--repeat", "1" if cold else str(a.repeat)]
        if cold:
            drop_caches()
        return run_json(cmd)

    env_cpu = dict(os.environ, ZARRGPU_GPU_ZSTD="0")
    for mode in ("full", "pairs"):
        R[f"zarrgpu_{mode}_warm"] = ours(mode, False)
        r = subprocess.run([bench, store, "--mode", mode, "--pairs", str(a.pairs), "--repeat", str(a.repeat)],
                           capture_output=True, text=True, env=env_cpu)
        R[f"zarrgpu_cpuzstd_{mode}_warm"] = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {
            "skipped": r.stderr[-300:]}
        if cold_ok:
            R[f"zarrgpu_{mode}_cold"] = ours(mode, True)
        print(f"zarrgpu {mode}: done ({time.time() - t_start:.0f}s)", flush=True)

    for peer in a.peers.split(","):
        for mode in ("full", "pairs"):
            if time.time() - t_start > a.budget:
                R[f"{peer}_{mode}_warm"] = {"skipped": "time budget"}
                continue
            peer_cmd = [sys.executable, os.path.join(HERE, "peers.py"), peer, store, mode, "--pairs", str(a.pairs),
                        "--repeat", str(a.repeat)]
            R[f"{peer}_{mode}_warm"] = run_json(peer_cmd)
            if cold_ok and "skipped" not in R[f"{peer}_{mode}_warm"]:
                drop_caches()
                R[f"{peer}_{mode}_cold"] = run_json(peer_cmd[:-2] + ["--repeat", "1"])
            print(f"{peer} {mode}: done ({time.time() - t_start:.0f}s)", flush=True)

    with open(os.path.join(a.out, "gpu_read.json"), "w") as f:
        json.dump(res, f, indent=1)
    write_markdown(res, os.path.join(a.out, "gpu_read.md"))
    plot(res, os.path.join(a.out, "gpu_read.png"))
    print(open(os.path.join(a.out, "gpu_read.md")).read())


def gbps(r):
    if not isinstance(r, dict) or "skipped" in r:
        return None
    return r.get("zarrgpu_gbps", r.get("gbps"))


def write_markdown(res, path):
    R = res["results"]
    lines = [f"# GPU read benchmark ({res['date']}, {res['gpu']})", "",
             f"`{res['command']}`; store `{res['store']}`: {res['time_steps']} time steps of "
             f"{res['step_bytes'] / 1e6:.1f} MB float32, zstd-3, one step per chunk. GB/s of decoded data landed "
             "in GPU memory (median).", "",
             "| reader | full warm | full cold | pairs warm | pairs cold |", "| --- | --- | --- | --- | --- |"]
    names = [("zarrgpu", "zarrgpu (GPU zstd)"), ("zarrgpu_cpuzstd", "zarrgpu (CPU zstd, ZARRGPU_GPU_ZSTD=0)"),
             ("tensorstore", "TensorStore -> host -> cupy"), ("zarr-gpu", "zarr-python 3 enable_gpu()"),
             ("zarr-gds", "zarr-python 3 + KvikIO GDSStore")]
    for key, label in names:
        cells = []
        for mode in ("full", "pairs"):
            for temp in ("warm", "cold"):
                r = R.get(f"{key}_{mode}_{temp}")
                g = gbps(r)
                cells.append(f"{g:.2f}" if g is not None else ("skipped: " + r["skipped"][:60] if r else "-"))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    L = R.get("limits", {})
    lines += ["", "Limits: " + ", ".join(
        [f"pinned H2D {L.get('pinned_h2d_gbps', 0):.1f} GB/s",
         f"pread from page cache ({L.get('pread_threads', 16)} threads) {L.get('pread_page_cache_gbps', 0):.1f} GB/s (stored bytes)",
         f"libzstd on {L.get('libzstd_threads', '?')} cores {L.get('libzstd_all_cores_gbps', 0):.1f} GB/s (decoded)",
         f"cold disk {gbps(R.get('limit_cold_disk')) or 0:.2f} GB/s (stored bytes)"]), ""]
    for key in ("zarrgpu_full_warm", "zarrgpu_pairs_warm", "zarrgpu_full_cold"):
        s = R.get(key, {}).get("stats") if isinstance(R.get(key), dict) else None
        if s:
            lines.append(f"- {key} breakdown (last run): io path {s['io_path']} ({s['io_detail']}); "
                         f"total {s['seconds_total']:.3f}s, host fetch {s['seconds_io']:.3f}s, H2D {s['seconds_h2d']:.3f}s, "
                         f"GPU decode {s['seconds_gpu_decode']:.3f}s, place {s['seconds_place']:.3f}s; "
                         f"{s['gpu_decoded']} chunks decoded on the GPU, {s['cpu_decoded']} on CPU threads, {s['batches']} batches")
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
    keys = ["zarrgpu", "zarrgpu_cpuzstd", "tensorstore", "zarr-gpu", "zarr-gds"]
    cols = [("full", "warm"), ("full", "cold"), ("pairs", "warm"), ("pairs", "cold")]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    w = 0.8 / len(keys)
    for i, k in enumerate(keys):
        vals = [gbps(R.get(f"{k}_{m}_{t}")) or 0 for m, t in cols]
        ax.bar([c + i * w for c in range(len(cols))], vals, w, label=k)
    L = R.get("limits", {})
    for v, lab in ((L.get("libzstd_all_cores_gbps"), "libzstd all cores"), (L.get("pinned_h2d_gbps"), "pinned H2D")):
        if v:
            ax.axhline(v, ls="--", lw=0.8, color="gray")
            ax.text(len(cols) - 0.5, v, lab, fontsize=7, va="bottom")
    ax.set_xticks([c + 0.4 - w / 2 for c in range(len(cols))])
    ax.set_xticklabels([f"{m} {t}" for m, t in cols])
    ax.set_ylabel("GB/s decoded into GPU memory")
    ax.set_title(f"ERA5-like float32 zstd-3, {res['gpu']}, {res['date']}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
