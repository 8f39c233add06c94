"""Issue 32's loader benchmark on the GPU machine: every row in one run, each row a
subprocess (its own CUDA context, so its GPU memory is its own), results in
OUT/loader.{md,json,png}.

  python bench/loader/bench_loader.py --store ZSTD [--sharded S] [--hackathon S] --out DIR

Rows: 1 synthetic batches on the GPU (the model alone); 2 zarrgpu.loader (default 2 GiB budget,
a 1 GiB budget, the sharded store, the hackathon's one-level-per-chunk layout, two GPUs with
torchrun); 3 xarray + zarr-python on CPU workers -> DataLoader -> .cuda(); 4 zarr-python's
GPU mode (when zarr is installed; KvikIO's GDSStore when kvikio is); 5 DALI + nvCOMP: not
run (DALI's wheel, ~500 MB, cannot travel in the 64 MiB carried to the machine).
Each loader row runs alone (no model: samples/s, GB/s, measured loader GPU memory) and
training the model (busy fraction = training rate / synthetic rate).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRAIN = str(ROOT / "examples" / "train_era5.py")
PEERS = str(ROOT / "bench" / "loader" / "peer_loaders.py")


def run(cmd: list[str], timeout: float, log) -> dict | None:
    t0 = time.time()
    print("$", " ".join(cmd), flush=True)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        log.write(f"$ {' '.join(cmd)}\nTIMEOUT after {timeout} s\n")
        return {"error": f"timeout {timeout} s"}
    log.write(f"$ {' '.join(cmd)}\n{r.stdout}\n{r.stderr}\n")
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode != 0 or not lines:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        print("  failed:", " | ".join(tail), flush=True)
        return {"error": " | ".join(tail)[-300:]}
    out = json.loads(lines[-1])
    out["wall_s"] = time.time() - t0
    print(f"  {out.get('samples_per_s', 0):.1f} samples/s, {out.get('gb_per_s', 0):.2f} GB/s", flush=True)
    return out


def full_read_rate(store: str) -> dict:
    """bench/gpu_read's measure: the whole array in one device read, warm (best of 2)."""
    code = (
        "import time, json, torch, zarrgpu\n"
        f"a = zarrgpu.open({store!r}, path='data')\n"
        "out = torch.empty(a.shape, dtype=torch.float32, device='cuda')\n"
        "best = 0\n"
        "for _ in range(3):\n"
        "    torch.cuda.synchronize(); t = time.perf_counter(); a.read(out=out); torch.cuda.synchronize()\n"
        "    best = max(best, a.nbytes / (time.perf_counter() - t) / 1e9)\n"
        "print(json.dumps({'gb_per_s': best, 'bytes': a.nbytes}))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    return json.loads(lines[-1]) if lines else {"error": (r.stderr or "")[-300:]}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--store", required=True, help="zstd store, one step per chunk (bench/gpu_read's)")
    p.add_argument("--sharded", help="its sharded variant")
    p.add_argument("--hackathon", help="one level per chunk")
    p.add_argument("--out", default=str(ROOT / "bench" / "results"))
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--peer-steps", type=int, default=24)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--workers", type=int, default=min(16, os.cpu_count() or 8))
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = open(out / "loader_bench.log", "w")
    import torch

    gpus = torch.cuda.device_count()
    name = torch.cuda.get_device_name(0) if gpus else "no GPU"
    common = ["--batch-size", str(args.batch_size), "--steps", str(args.steps), "--width", str(args.width),
              "--stats-samples", "8"]
    rows: list[dict] = []
    full: dict = {}
    py = sys.executable
    specs: list[tuple[str, str, list[str], float]] = []  # label, mode, command, timeout

    def both(label, cmd, timeout=240):
        specs.append((label, "alone", cmd + ["--no-model"], timeout))
        specs.append((label, "train", cmd, timeout))

    specs.append(("1 synthetic (batch on the GPU)", "train", [py, TRAIN, args.store, "--synthetic", "--json", *common],
                  240))
    layouts = [("zstd, 1 step/chunk", args.store)]
    if args.sharded:
        layouts.append(("sharded", args.sharded))
    if args.hackathon:
        layouts.append(("1 level/chunk", args.hackathon))
    for lname, st in layouts:
        both(f"2 zarrgpu.loader, {lname}, 2 GiB", [py, TRAIN, st, "--json", *common])
    half = list(common)
    half[1] = str(max(1, args.batch_size // 2))  # a ring of 3 batches of 16 pairs is 1.6 GB alone
    both("2 zarrgpu.loader, zstd, 1 GiB (batch/2)", [py, TRAIN, args.store, "--json", "--memory-budget", "1", *half])
    if gpus >= 2 and shutil.which("torchrun"):
        both("2 zarrgpu.loader, zstd, 2 GPUs (torchrun)",
             ["torchrun", "--standalone", "--nproc-per-node=2", TRAIN, args.store, "--json", *common])
    peer_common = ["--batch-size", str(args.batch_size), "--steps", str(args.peer_steps), "--width", str(args.width)]
    both("3 xarray + zarr-python CPU -> DataLoader",
         [py, PEERS, "xarray-cpu", args.store, "--workers", str(args.workers), *peer_common], 300)
    try:
        import zarr  # noqa: F401

        both("4 zarr-python GPU mode", [py, PEERS, "zarr-gpu", args.store, *peer_common], 300)
    except ImportError:
        rows.append({"label": "4 zarr-python GPU mode", "kind": "alone", "error": "zarr-python not installed"})
    rows.append({"label": "5 DALI + nvCOMP", "kind": "alone",
                 "error": "not run: DALI's wheel (~500 MB) cannot travel in the 64 MiB carried to the GPU machine"})

    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    for label, mode, cmd, timeout in specs:
        r = run(cmd, timeout, log) or {}
        r.update(label=label, kind=mode)
        rows.append(r)
        write_results(out, rows, full, args, name, gpus, when)  # a cut-short run still leaves its rows
    full.update(full_read_rate(args.store))
    write_results(out, rows, full, args, name, gpus, when)
    print((out / "loader.md").read_text())


def write_results(out: Path, rows: list[dict], full: dict, args, name: str, gpus: int, when: str) -> None:
    rows = sorted(rows, key=lambda r: r["label"][:1])
    pick = {(r["label"], r["kind"]): r for r in rows}
    synth_rate = pick.get(("1 synthetic (batch on the GPU)", "train"), {}).get("samples_per_s")
    for r in rows:
        if r.get("kind") == "train" and synth_rate and r.get("samples_per_s") and "synthetic" not in r["label"]:
            r["busy_fraction"] = r["samples_per_s"] / synth_rate
    ours = pick.get(("2 zarrgpu.loader, zstd, 1 step/chunk, 2 GiB", "alone"), {})
    ours_train = pick.get(("2 zarrgpu.loader, zstd, 1 step/chunk, 2 GiB", "train"), {})
    base = pick.get(("3 xarray + zarr-python CPU -> DataLoader", "alone"), {})
    gpu_peer = pick.get(("4 zarr-python GPU mode", "alone"), {})
    two = pick.get(("2 zarrgpu.loader, zstd, 2 GPUs (torchrun)", "alone"), {})
    goals = {}
    if ours_train.get("busy_fraction"):
        goals["training / synthetic (>= 0.95)"] = ours_train["busy_fraction"]
    if ours.get("samples_per_s") and base.get("samples_per_s"):
        goals["loader alone / row 3 (>= 10x)"] = ours["samples_per_s"] / base["samples_per_s"]
    if ours.get("samples_per_s") and gpu_peer.get("samples_per_s"):
        goals["loader alone / row 4 (>= 2x)"] = ours["samples_per_s"] / gpu_peer["samples_per_s"]
    if ours.get("gb_per_s") and full.get("gb_per_s"):
        goals["shuffled batches / full warm read (>= 0.80)"] = ours["gb_per_s"] / full["gb_per_s"]
    if two.get("samples_per_s") and ours.get("samples_per_s"):
        goals["2 GPUs / 1 GPU, loader alone (>= 1.9x)"] = two["samples_per_s"] / ours["samples_per_s"]
    command = "bash bench/loader/run.sh"
    doc = {"date": when, "device": name, "gpus": gpus, "command": command, "store": args.store,
           "batch_size": args.batch_size, "full_read": full, "rows": rows, "goals": goals}
    (out / "loader.json").write_text(json.dumps(doc, indent=1, default=str))
    md = [f"# Loader benchmark ({when}, {name} x {gpus})", "",
          f"`{command}`; store `{args.store}` (float32 [time, 4, 721, 1440], zstd-3); batch {args.batch_size} "
          f"(t -> t+1) pairs, shuffled; model: examples/train_era5.py's CNN (width {args.width}, bf16 autocast).",
          f"Full warm read of the store into GPU memory (one call): {full.get('gb_per_s', float('nan')):.2f} GB/s.",
          "", "| row | mode | samples/s | GB/s | busy | loader GPU memory | note |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        mem = r.get("loader_gpu_bytes")
        md.append("| {} | {} | {} | {} | {} | {} | {} |".format(
            r["label"], r["kind"], f"{r['samples_per_s']:.1f}" if r.get("samples_per_s") else "-",
            f"{r['gb_per_s']:.2f}" if r.get("gb_per_s") else "-",
            f"{100 * r['busy_fraction']:.1f}%" if r.get("busy_fraction") else "-",
            f"{mem / 2**30:.2f} GiB" if mem else "-", r.get("error", "").replace("|", "/")[-160:]))
    md += ["", "Goals:", ""] + [f"- {k}: **{v:.2f}**" for k, v in goals.items()]
    md += ["", "busy = training samples/s over synthetic samples/s (the model's share of each step). "
           "GB/s counts the bytes of the samples delivered (2 steps of 16.6 MB each). Loader GPU memory: "
           "free device memory before the loader against the least during the loader-alone run."]
    (out / "loader.md").write_text("\n".join(md) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        shown = [r for r in rows if r.get("samples_per_s")]
        fig, ax = plt.subplots(figsize=(10, 0.45 * len(shown) + 1.5))
        ax.barh([f"{r['label']} ({r['kind']})" for r in shown], [r["samples_per_s"] for r in shown],
                color=["tab:green" if "zarrgpu" in r["label"] else "tab:gray" for r in shown])
        ax.invert_yaxis()
        ax.set_xlabel("samples/s (batch of (t, t+1) pairs)")
        ax.set_title(f"zarrgpu.loader, {name}, {when}")
        fig.tight_layout()
        fig.savefig(out / "loader.png", dpi=110)
        plt.close(fig)
    except Exception as e:  # the table is the result; the plot is a view of it
        print("plot skipped:", e)


if __name__ == "__main__":
    main()
