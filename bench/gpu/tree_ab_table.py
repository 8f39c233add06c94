"""Medians of bench/gpu/tree_ab.sh's runs: read GB/s per store and Zstd GB/s per row, A against B."""
import os, re, statistics, sys
reads, rows, gpu = sys.argv[1], sys.argv[2], sys.argv[3]
print(f"# A/B ({gpu}): A = {os.environ.get('A_NAME', 'A')}, B = this tree; medians of 3 rounds\n")
runs = {}
for line in open(reads):
    p = line.split()
    if len(p) > 2: runs.setdefault(p[0], {}).setdefault(p[1], []).extend(float(x) for x in p[2:])
print("| read | A GB/s | B GB/s | B / A |\n|---|---:|---:|---:|")
for st, v in runs.items():
    a, b = statistics.median(v.get("A", [0])), statistics.median(v.get("B", [0]))
    print(f"| {st} full warm | {a:.2f} | {b:.2f} | {b / a if a else 0:.3f} |")
z = {}
for line in open(rows):
    m = re.match(r"(\w) level\s+(\d+)\s+chunk\s+(\d+) KiB.*zarrgpu\s+([\d.]+) GB/s", line)
    if m: z.setdefault((int(m[2]), int(m[3])), {}).setdefault(m[1], []).append(float(m[4]))
print("\n| level | chunk KiB | A GB/s | B GB/s | B / A |\n|---:|---:|---:|---:|---:|")
for (lv, kib), v in sorted(z.items()):
    a, b = statistics.median(v.get("A", [0])), statistics.median(v.get("B", [0]))
    print(f"| {lv} | {kib} | {a:.2f} | {b:.2f} | {b / a if a else 0:.3f} |")
