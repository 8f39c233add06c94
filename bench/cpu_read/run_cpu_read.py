"""The issue-2 benchmark: full-array reads into host memory, zarrgpu against
TensorStore in the same run, warm page cache and cold, with the libzstd ceiling.

    python bench/cpu_read/run_cpu_read.py --bin build --data /tmp/zarrgpu-bench \
        --gb 8 --out bench/results

Generates the ERA5-like dataset (zstd-3 one time step per chunk, a sharded and
an uncompressed variant) with `zarrgpu generate era5` unless it is already
there, then writes cpu_read.json, cpu_read.md and cpu_read.png into --out.
Cold runs drop the page cache (root only) before each read.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("zstd", "sharded", "raw")


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def can_drop_caches():
    try:
        drop_caches()
        return True
    except OSError:
        return False


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build", help="build directory")
    p.add_argument("--data", default="/tmp/zarrgpu_bench")  # shared with bench/gpu_read
    p.add_argument("--gb", type=float, default=8.0, help="decoded size of each variant")
    p.add_argument("--channels", type=int, default=4)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--cold-repeat", type=int, default=3)
    p.add_argument("--out", default=os.path.join(HERE, "..", "results"))
    a = p.parse_args()

    zarrgpu = os.path.join(a.bin, "tools", "zarrgpu", "zarrgpu")
    bench = os.path.join(a.bin, "bench", "cpu_read", "bench_cpu_read")
    step_bytes = a.channels * 721 * 1440 * 4
    time_steps = max(1, int(a.gb * 1e9 // step_bytes))
    os.makedirs(a.data, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)

    results = []
    cold_ok = can_drop_caches()
    for v in VARIANTS:
        store = os.path.join(a.data, f"era5_{v}_{time_steps}.zarr")
        if not os.path.exists(store):
            subprocess.run([zarrgpu, "generate", "era5", store, "--time", str(time_steps),
                            "--channels", str(a.channels), "--lat", "721", "--lon", "1440",
                            "--variant", v, "--quiet"], check=True)
        row = {"variant": v, "store": store, "time_steps": time_steps}
        # warm: one untimed read fills the page cache, then the median of --repeat
        run_json([bench, store, "--threads", str(a.threads), "--repeat", "1", "--json"])
        ours = run_json([bench, store, "--threads", str(a.threads), "--repeat", str(a.repeat), "--json"]
                        + (["--ceiling"] if v == "zstd" else []))
        peer = run_json([sys.executable, os.path.join(HERE, "bench_tensorstore.py"), store,
                         "--threads", str(a.threads), "--repeat", str(a.repeat), "--json"])
        row.update(decoded_bytes=ours["decoded_bytes"], warm_zarrgpu=ours["zarrgpu_gbps"],
                   warm_tensorstore=peer["tensorstore_gbps"])
        if v == "zstd":
            row["zstd_ceiling"] = ours["zstd_ceiling_gbps"]
        if cold_ok:
            cz, ct = [], []
            for _ in range(a.cold_repeat):
                drop_caches()
                cz.append(run_json([bench, store, "--threads", str(a.threads), "--repeat", "1", "--json"])["zarrgpu_gbps"])
                drop_caches()
                ct.append(run_json([sys.executable, os.path.join(HERE, "bench_tensorstore.py"), store,
                                    "--threads", str(a.threads), "--repeat", "1", "--json"])["tensorstore_gbps"])
            row.update(cold_zarrgpu=statistics.median(cz), cold_tensorstore=statistics.median(ct))
        results.append(row)
        print(json.dumps(row), flush=True)

    meta = {
        "date": datetime.date.today().isoformat(),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "threads": a.threads,
        "command": " ".join(sys.argv),
        "gpu": subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip() or "none",
    }
    with open(os.path.join(a.out, "cpu_read.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)

    lines = [f"# Full-array reads into host memory ({meta['date']}, {meta['cpus']} cores, GPU machine: {meta['gpu']})",
             "", f"Command: `{meta['command']}`", "",
             "| variant | GB decoded | zarrgpu warm GB/s | TensorStore warm GB/s | ratio | zarrgpu cold | TensorStore cold | libzstd ceiling | % of ceiling |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        ceil = r.get("zstd_ceiling")
        lines.append("| {v} | {gb:.2f} | {wz:.2f} | {wt:.2f} | {ratio:.2f}x | {cz} | {ct} | {c} | {pc} |".format(
            v=r["variant"], gb=r["decoded_bytes"] / 1e9, wz=r["warm_zarrgpu"], wt=r["warm_tensorstore"],
            ratio=r["warm_zarrgpu"] / r["warm_tensorstore"],
            cz=f"{r['cold_zarrgpu']:.2f}" if "cold_zarrgpu" in r else "n/a",
            ct=f"{r['cold_tensorstore']:.2f}" if "cold_tensorstore" in r else "n/a",
            c=f"{ceil:.2f}" if ceil else "-", pc=f"{100 * r['warm_zarrgpu'] / ceil:.0f}%" if ceil else "-"))
    with open(os.path.join(a.out, "cpu_read.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        xs = range(len(results))
        w = 0.2
        ax.bar([x - 1.5 * w for x in xs], [r["warm_zarrgpu"] for r in results], w, label="zarrgpu warm")
        ax.bar([x - 0.5 * w for x in xs], [r["warm_tensorstore"] for r in results], w, label="TensorStore warm")
        ax.bar([x + 0.5 * w for x in xs], [r.get("cold_zarrgpu", 0) for r in results], w, label="zarrgpu cold")
        ax.bar([x + 1.5 * w for x in xs], [r.get("cold_tensorstore", 0) for r in results], w, label="TensorStore cold")
        for r, x in zip(results, xs):
            if r.get("zstd_ceiling"):
                ax.hlines(r["zstd_ceiling"], x - 2 * w, x + 2 * w, colors="k", linestyles="dashed", label="libzstd ceiling")
        ax.set_xticks(list(xs), [r["variant"] for r in results])
        ax.set_ylabel("decoded GB/s")
        ax.set_title(f"Full-array read to host, {meta['cpus']} cores ({meta['date']})")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "cpu_read.png"), dpi=120)
    except ImportError:
        print("matplotlib missing: no plot")


if __name__ == "__main__":
    main()
