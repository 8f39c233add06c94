"""The issue-2 benchmark: full-array reads into host memory, zarrgpu against
TensorStore in the same run, warm page cache and cold, with the libzstd ceiling.

    python bench/cpu_read/run_cpu_read.py --bin build --data /tmp/zarrgpu-bench \
        --gb 8 --out bench/results

Generates the ERA5-like dataset (zstd-3 one time step per chunk, a sharded and
an uncompressed variant) with `zarrgpu generate era5` unless it is already
there, then writes cpu_read.json, cpu_read.md and cpu_read.png into --out.

Cold runs empty the page cache before each read: /proc/sys/vm/drop_caches as
root, else POSIX_FADV_DONTNEED on every file of the dataset (directory entries
and inodes stay cached then); the results name the method. The readers take
turns going first, so that neither always follows the other's read of the same
files (a VM's host may cache what the guest just read).

zarrgpu runs with the ZARRGPU_READAHEAD of the environment (unset: the
default), reported in the results; cold zarrgpu reads are also timed with
read-ahead off (ZARRGPU_READAHEAD=0) unless --no-readahead-off.
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


def run_json(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_env(env):
    """os.environ with `env` applied (a None value removes the variable)."""
    e = dict(os.environ)
    for k, v in env.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return e


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


def evict_files(root):
    """Drops every file under root from the page cache (works unprivileged)."""
    subprocess.run(["sync"], check=True)
    for d, _, files in os.walk(root):
        for name in files:
            try:
                fd = os.open(os.path.join(d, name), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip() or "none"
    except OSError:  # no nvidia-smi: a machine without a GPU
        return "none"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build", help="build directory")
    p.add_argument("--data", default="/tmp/zarrgpu_bench")  # shared with bench/gpu_read
    p.add_argument("--gb", type=float, default=8.0, help="decoded size of each variant")
    p.add_argument("--channels", type=int, default=4)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--cold-repeat", type=int, default=3)
    p.add_argument("--no-readahead-off", action="store_true",
                   help="skip the cold zarrgpu reads with ZARRGPU_READAHEAD=0")
    p.add_argument("--out", default=os.path.join(HERE, "..", "results"))
    a = p.parse_args()

    zarrgpu = os.path.join(a.bin, "tools", "zarrgpu", "zarrgpu")
    bench = os.path.join(a.bin, "bench", "cpu_read", "bench_cpu_read")
    step_bytes = a.channels * 721 * 1440 * 4
    time_steps = max(1, int(a.gb * 1e9 // step_bytes))
    os.makedirs(a.data, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)

    results = []
    cold_method = "drop_caches" if can_drop_caches() else "fadvise_dontneed"
    readahead_env = os.environ.get("ZARRGPU_READAHEAD")
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
        row["readahead_bytes"] = ours["readahead_bytes"]

        def make_cold():
            if cold_method == "drop_caches":
                drop_caches()
            else:
                evict_files(store)

        ours_cmd = [bench, store, "--threads", str(a.threads), "--repeat", "1", "--json"]
        readers = {
            "cold_zarrgpu": lambda: run_json(ours_cmd)["zarrgpu_gbps"],
            "cold_tensorstore": lambda: run_json([sys.executable, os.path.join(HERE, "bench_tensorstore.py"), store,
                                                  "--threads", str(a.threads), "--repeat", "1",
                                                  "--json"])["tensorstore_gbps"],
        }
        if not a.no_readahead_off:
            readers["cold_zarrgpu_readahead_off"] = lambda: run_json(
                ours_cmd, env=run_env({"ZARRGPU_READAHEAD": "0"}))["zarrgpu_gbps"]
        cold = {k: [] for k in readers}
        names = list(readers)
        for k in range(a.cold_repeat):
            for name in names[k % len(names):] + names[:k % len(names)]:  # each goes first in turn
                make_cold()
                cold[name].append(readers[name]())
        row.update({k: statistics.median(x) for k, x in cold.items()})
        row["cold_runs"] = cold
        results.append(row)
        print(json.dumps(row), flush=True)

    meta = {
        "date": datetime.date.today().isoformat(),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "threads": a.threads,
        "command": " ".join(sys.argv),
        "cold_method": cold_method,
        "readahead_env": readahead_env,
        "readahead_bytes": results[0]["readahead_bytes"] if results else None,
        "gpu": gpu_name(),
    }
    with open(os.path.join(a.out, "cpu_read.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)

    ra = meta["readahead_bytes"]
    ra_text = ("off" if ra == 0 else f"{ra / 2**20:g} MiB") + (
        f" (ZARRGPU_READAHEAD={readahead_env})" if readahead_env is not None else " (default)")
    lines = [f"# Full-array reads into host memory ({meta['date']}, {meta['cpus']} cores, GPU machine: {meta['gpu']})",
             "", f"Command: `{meta['command']}`", "",
             f"zarrgpu read-ahead: {ra_text}. Cold page cache: {cold_method}, median of {a.cold_repeat} "
             "(readers take turns going first).", "",
             "| variant | GB decoded | zarrgpu warm GB/s | TensorStore warm GB/s | ratio | zarrgpu cold | zarrgpu cold, read-ahead off | TensorStore cold | libzstd ceiling | % of ceiling |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        ceil = r.get("zstd_ceiling")
        lines.append("| {v} | {gb:.2f} | {wz:.2f} | {wt:.2f} | {ratio:.2f}x | {cz} | {co} | {ct} | {c} | {pc} |".format(
            v=r["variant"], gb=r["decoded_bytes"] / 1e9, wz=r["warm_zarrgpu"], wt=r["warm_tensorstore"],
            ratio=r["warm_zarrgpu"] / r["warm_tensorstore"],
            cz=f"{r['cold_zarrgpu']:.2f}" if "cold_zarrgpu" in r else "n/a",
            co=f"{r['cold_zarrgpu_readahead_off']:.2f}" if "cold_zarrgpu_readahead_off" in r else "n/a",
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
