#!/usr/bin/env python3
"""Per kernel of an Nsight Compute CSV report (`ncu --csv --metrics ...`,
bench/zstd_gpu/peer_launches.sh): launches, summed time, and the launch
shape (grid, block, registers, shared memory, achieved occupancy) of its
longest launch, longest kernel first. Usage: ncu_launches.py REPORT.csv"""
import collections
import csv
import sys

SCALE = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}
SHAPE = [("launch__grid_size", "grid"), ("launch__block_size", "block"), ("launch__registers_per_thread", "regs"),
         ("launch__shared_mem_per_block_static", "smem"), ("launch__shared_mem_per_block_dynamic", "dyn"),
         ("sm__warps_active.avg.pct_of_peak_sustained_active", "occ%"),
         ("launch__occupancy_limit_shared_mem", "lim_smem")]


def main(path):
    rows = [line for line in open(path, errors="replace") if line.startswith('"')]
    launches = collections.defaultdict(dict)  # (name, id) -> metric -> value
    for r in csv.DictReader(rows):
        name = r["Kernel Name"].split("(")[0]
        value = r["Metric Value"].replace(",", "")
        if r["Metric Name"] == "gpu__time_duration.sum":
            value = float(value) * SCALE.get(r["Metric Unit"], 1.0)
        launches[(name, r["ID"])][r["Metric Name"]] = value
    if not launches:
        print("no kernels in", path)
        return 1
    total, count, longest = collections.defaultdict(float), collections.Counter(), {}
    for (name, _), m in launches.items():
        t = m.get("gpu__time_duration.sum", 0.0)
        total[name] += t
        count[name] += 1
        if name not in longest or t > longest[name].get("gpu__time_duration.sum", 0.0):
            longest[name] = m
    for name in sorted(total, key=total.get, reverse=True):
        shape = " ".join(f"{short}={longest[name].get(key, '?')}" for key, short in SHAPE)
        print(f"{total[name]:10.1f} us {count[name]:5d} x  {name[-90:]}\n              {shape}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
