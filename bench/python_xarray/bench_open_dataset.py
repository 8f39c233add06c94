#!/usr/bin/env python3
"""xr.open_dataset(...).load() on an ERA5-like store: zarrgpu (device="cuda") against
xarray's zarr engine with zarr-python's GPU mode (zarr.config.enable_gpu()), same run.

    zarrgpu generate era5 /data/era5.zarr          # the CLI engineer's generator
    python bench/python_xarray/bench_open_dataset.py /data/era5.zarr --repeats 5

Reports the median (and min) wall time of N loads after one warm-up load per engine,
and GB/s of decoded data-variable bytes, to OUT/bench_open_dataset.{json,md}.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import socket
import statistics
import sys
import time
from pathlib import Path


def _sync() -> None:
    try:
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
    except ImportError:
        pass


def _bytes_loaded(ds) -> int:
    return int(sum(v.nbytes for v in ds.variables.values()))


def _load_zarrgpu(path: str, device: str):
    import xarray as xr

    ds = xr.open_dataset(path, engine="zarrgpu", device=device).load()
    _sync()
    return ds


def _load_zarr(path: str, gpu: bool):
    import xarray as xr
    import zarr

    if gpu:
        with zarr.config.enable_gpu():
            ds = xr.open_dataset(path, engine="zarr").load()
            _sync()
            return ds
    return xr.open_dataset(path, engine="zarr").load()


def _time(fn, repeats: int) -> dict:
    ds = fn()  # warm-up: imports, metadata caches, CUDA context, page cache
    nbytes = _bytes_loaded(ds)
    del ds
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ds = fn()
        times.append(time.perf_counter() - t0)
        del ds
    med = statistics.median(times)
    return {"times_s": times, "median_s": med, "min_s": min(times), "bytes": nbytes,
            "gb_per_s_median": nbytes / med / 1e9, "gb_per_s_best": nbytes / min(times) / 1e9}


def _cxx_full_read(path: str, binary: str, repeats: int) -> dict:
    """The C++ read path on the same store: bench_gpu_read --mode full (data variable only)."""
    import subprocess

    r = subprocess.run([binary, path, "--array", "data", "--mode", "full", "--repeat", str(repeats + 1)],
                       capture_output=True, text=True, check=True)
    j = json.loads(r.stdout.strip().splitlines()[-1])
    runs = j["all_gbps"][1:] or j["all_gbps"]  # the first repeat is the warm-up, as for the others
    med = statistics.median(runs)
    return {"gb_per_s_median": med, "gb_per_s_best": max(runs), "bytes": j["bytes"],
            "median_s": j["bytes"] / med / 1e9, "min_s": j["bytes"] / max(runs) / 1e9,
            "note": "data variable only, C++ API into one device buffer"}


def _machine() -> dict:
    info = {"host": socket.gethostname(), "python": sys.version.split()[0], "platform": platform.platform(),
            "cpus": os.cpu_count()}
    try:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(0)
        info["gpu"] = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    except Exception as e:  # noqa: BLE001 - the report says why there is no GPU name
        info["gpu"] = f"unknown ({type(e).__name__})"
    for mod in ("zarrgpu", "zarr", "xarray", "numpy", "cupy"):
        try:
            info[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            info[mod] = None
    return info


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", help="path of the ERA5-like Zarr store")
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "results" / "python_xarray"))
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--device", default="cuda", help="zarrgpu device (cuda, cuda:N or cpu)")
    p.add_argument("--engines", default="zarrgpu,zarr-gpu,zarr-cpu",
                   help="comma-separated subset of zarrgpu, zarrgpu-cpu, zarr-gpu, zarr-cpu, cxx")
    p.add_argument("--cxx-bench", default=None,
                   help="bench_gpu_read binary: adds the C++ read path (engine cxx) to compare the Python cost with")
    args = p.parse_args(argv)

    runs = {
        "zarrgpu": lambda: _load_zarrgpu(args.dataset, args.device),
        "zarrgpu-cpu": lambda: _load_zarrgpu(args.dataset, "cpu"),
        "zarr-gpu": lambda: _load_zarr(args.dataset, gpu=True),
        "zarr-cpu": lambda: _load_zarr(args.dataset, gpu=False),
    }
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if args.cxx_bench and "cxx" not in engines:
        engines.insert(0, "cxx")
    results = {}
    for name in engines:
        try:
            if name == "cxx":
                if not args.cxx_bench:
                    raise ValueError("engine cxx needs --cxx-bench")
                results[name] = _cxx_full_read(args.dataset, args.cxx_bench, args.repeats)
            else:
                results[name] = _time(runs[name], args.repeats)
        except Exception as e:  # noqa: BLE001 - one engine failing must not hide the others
            results[name] = {"error": f"{type(e).__name__}: {e}"}
        print(name, json.dumps({k: v for k, v in results[name].items() if k != "times_s"}), flush=True)

    report = {
        "benchmark": "xr.open_dataset(...).load()",
        "dataset": os.path.abspath(args.dataset),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "repeats": args.repeats,
        "machine": _machine(),
        "results": results,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_open_dataset.json").write_text(json.dumps(report, indent=1))
    lines = [
        f"# xr.open_dataset(...).load() — {report['dataset']}",
        "",
        f"Command: `{report['command']}`  ",
        f"Machine: {report['machine']['host']}, GPU {report['machine']['gpu']}, {report['machine']['cpus']} CPUs  ",
        f"Date: {report['date']}, median of {args.repeats} after one warm-up load",
        "",
        "| engine | median s | min s | GB/s (median) | GB/s (best) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, r in results.items():
        if "error" in r:
            lines.append(f"| {name} | error: {r['error']} | | | |")
        else:
            lines.append(f"| {name} | {r['median_s']:.3f} | {r['min_s']:.3f} | {r['gb_per_s_median']:.2f} | "
                         f"{r['gb_per_s_best']:.2f} |")
    cxx = results.get("cxx", {}).get("gb_per_s_median")
    py = results.get("zarrgpu", {}).get("gb_per_s_median")
    if cxx and py:
        report["zarrgpu_over_cxx"] = py / cxx
        lines += ["", f"zarrgpu through xarray / the C++ read path (medians): {py / cxx:.3f} "
                      "(xarray also loads the coordinates; the C++ figure is the data variable alone)"]
        (out / "bench_open_dataset.json").write_text(json.dumps(report, indent=1))
    (out / "bench_open_dataset.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'bench_open_dataset.json'} and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
