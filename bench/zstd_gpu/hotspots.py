#!/usr/bin/env python3
"""Top source lines of an `ncu --page source --csv --print-source cuda`
export by warp stall samples, with the stall reason that dominates each
line. Usage: hotspots.py SOURCE.csv [LINES]"""
import csv
import sys


def num(v):
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return 0.0


def main(path, top):
    lines = open(path, errors="replace").read().splitlines()
    # The export may hold several files, each with its own header row.
    rows, header, fname = [], None, ""
    for rec in csv.reader(lines):
        if not rec:
            continue
        if len(rec) == 1:
            fname = rec[0]
            continue
        if "Source" in rec and ("# Line" in rec or "Line" in rec):
            header = rec
            continue
        if header and len(rec) == len(header):
            rows.append((fname, dict(zip(header, rec))))
    if not rows:
        print("no source rows in", path)
        print("\n".join(lines[:5]))
        return 1
    keys = list(rows[0][1].keys())
    total_key = next((k for k in keys if k.startswith("Warp Stall Sampling (All")), None)
    if total_key is None:
        print("no stall sampling column; columns:", keys)
        return 1
    reasons = [k for k in keys if k.startswith("stall_") or k.startswith("smsp__pcsamp_warps_issue_stalled")]
    total = sum(num(r[total_key]) for _, r in rows) or 1.0
    rows.sort(key=lambda fr: num(fr[1][total_key]), reverse=True)
    print(f"# {total:.0f} stall samples; top lines ({total_key})")
    for fname, r in rows[:top]:
        s = num(r[total_key])
        if s == 0:
            break
        why = max(reasons, key=lambda k: num(r[k]), default="")
        line = r.get("# Line", r.get("Line", "?"))
        print(f"{100 * s / total:5.1f}%  {fname.split('/')[-1]}:{line}  [{why.replace('smsp__pcsamp_warps_issue_stalled_', '')}]  {r['Source'].strip()[:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40))
