#!/usr/bin/env python3
"""Writes zstd_gpu.md and zstd_gpu.json from zstd_gpu.csv, as zstd_gpu_bench
writes them: the GPU machine returns at most 8 files a call, and a call that
also keeps the logs may bring back only the CSV (plot.py redraws the PNG).
Figures come from the CSV's 6 significant digits.

  tables.py bench/results/zstd_gpu.csv [--sms 132] [--threads 16]"""
import argparse
import csv
import json
import os
import re


def cut(x, n):  # std::to_string(x).substr(0, n), as the bench prints
    return f"{x:.6f}"[:n]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--threads", type=int, default=16)
    a = ap.parse_args()
    lines = open(a.csv).read().splitlines()
    head = dict(re.match(r"(\w+)=(.*)", kv).groups() for kv in re.split(r",(?=\w+=)", lines[0].lstrip("# ")))
    rows = list(csv.DictReader(lines[1:]))
    cmd = head["command"]
    gib = re.search(r"--gib ([\d.]+)", cmd)
    gib_l19 = re.search(r"--gib-l19 ([\d.]+)", cmd)
    runs = re.search(r"--runs (\d+)", cmd)
    out = os.path.dirname(os.path.abspath(a.csv))
    md = [
        "# zarrgpu batched Zstandard decode, GB/s of decoded data",
        "",
        f"- device: {head['device']} ({a.sms} SMs); CPU threads: {a.threads}",
        f"- date: {head['date']}",
        f"- command: `{cmd}`",
        f"- data: ERA5-like float32 (smooth fields plus noise), {gib[1] if gib else '?'} GiB per row; level 19 rows: "
        f"{gib_l19[1] if gib_l19 else '?'} GiB (it compresses slowly)",
        f"- GPU: CUDA events around the decode call, median of {runs[1] if runs else '?'} runs, data resident on the GPU",
        "- zarrgpu GPU: the path the decoder's automatic strategy takes for the batch (bp: block-parallel, 1w: one "
        "warp per chunk); both paths are timed where chunks span several blocks",
        "",
        "| level | chunk | chunks | ratio | zarrgpu GPU | nvCOMP GPU | libzstd CPU | zarrgpu / nvCOMP | one warp | block-parallel |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    js = {"device": head["device"], "date": head["date"], "command": cmd, "cpu_threads": a.threads, "rows": []}
    for r in rows:
        f = {k: float(r[k]) for k in ("zarrgpu_gbps", "nvcomp_gbps", "libzstd_cpu_gbps", "zarrgpu_block_parallel_gbps",
                                      "zarrgpu_one_warp_gbps")}
        ok = {k: r[k] == "1" for k in ("zarrgpu_verified", "nvcomp_verified", "zarrgpu_block_parallel_verified",
                                       "zarrgpu_one_warp_verified")}
        ratio = int(r["decoded_bytes"]) / int(r["compressed_bytes"])
        path = "bp" if r["zarrgpu_path"] == "block_parallel" else "1w"
        nv = f["nvcomp_gbps"]
        md.append(
            f"| {r['level']} | {r['chunk_kib']} KiB | {r['chunks']} | {ratio:.3f} | {f['zarrgpu_gbps']:.2f} {path}"
            f"{'' if ok['zarrgpu_verified'] else ' (WRONG)'} | "
            f"{cut(nv, 6) + ('' if ok['nvcomp_verified'] else ' (WRONG)') if nv >= 0 else 'n/a'} | "
            f"{cut(f['libzstd_cpu_gbps'], 6) if f['libzstd_cpu_gbps'] >= 0 else 'n/a'} | "
            f"{cut(f['zarrgpu_gbps'] / nv, 5) if nv > 0 else 'n/a'} | "
            f"{f['zarrgpu_one_warp_gbps']:.2f}{'' if ok['zarrgpu_one_warp_verified'] else ' (WRONG)'} | "
            f"{cut(f['zarrgpu_block_parallel_gbps'], 6) if f['zarrgpu_block_parallel_gbps'] >= 0 else 'n/a'}"
            f"{' (WRONG)' if f['zarrgpu_block_parallel_gbps'] >= 0 and not ok['zarrgpu_block_parallel_verified'] else ''} |")
        js["rows"].append({"level": int(r["level"]), "chunk_kib": int(r["chunk_kib"]), "chunks": int(r["chunks"]),
                           "decoded_bytes": int(r["decoded_bytes"]), "compressed_bytes": int(r["compressed_bytes"]),
                           "zarrgpu_gbps": f["zarrgpu_gbps"], "nvcomp_gbps": nv, "libzstd_cpu_gbps": f["libzstd_cpu_gbps"],
                           "zarrgpu_verified": ok["zarrgpu_verified"], "nvcomp_verified": ok["nvcomp_verified"]})
    open(os.path.join(out, "zstd_gpu.md"), "w").write("\n".join(md) + "\n")
    rows_js = ",\n".join("    " + json.dumps(r) for r in js["rows"])
    with open(os.path.join(out, "zstd_gpu.json"), "w") as fh:
        fh.write(f'{{\n  "device": {json.dumps(js["device"])},\n  "date": {json.dumps(js["date"])},\n'
                 f'  "command": {json.dumps(js["command"])},\n  "cpu_threads": {js["cpu_threads"]},\n'
                 f'  "rows": [\n{rows_js}\n  ]\n}}\n')
    print(f"wrote {out}/zstd_gpu.md and zstd_gpu.json ({len(rows)} rows)")


if __name__ == "__main__":
    main()
