#!/usr/bin/env python3
"""Sums the GPU time of each kernel in an Nsight Compute CSV report
(`ncu --csv --metrics gpu__time_duration.sum ...`), longest first: which
kernel bounds a run. Usage: ncu_kernel_times.py REPORT.csv"""
import collections
import csv
import sys

SCALE = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}


def main(path):
    rows = [line for line in open(path, errors="replace") if line.startswith('"')]
    total, launches = collections.defaultdict(float), collections.Counter()
    for r in csv.DictReader(rows):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        # "void zarrgpu::zstd::gpu::execute_kernel<Policy>(Params)" -> "execute_kernel";
        # the engine's own kernels (anonymous namespace) get "engine::" before
        # theirs: both have a place_kernel.
        full = r["Kernel Name"].split("(")[0].split("<")[0].split()[-1]
        name = full.split("::")[-1]
        if "zstd" not in full:
            name = "engine::" + name
        total[name] += float(r["Metric Value"].replace(",", "")) * SCALE.get(r["Metric Unit"], 1.0)
        launches[name] += 1
    if not launches:
        print("no kernel times in", path)
        return 1
    for k in sorted(total, key=total.get, reverse=True):
        print(f"{k:<28} {launches[k]:5d} launches {total[k]:12.1f} us")
    print(f"{'total':<28} {sum(launches.values()):5d} launches {sum(total.values()):12.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
