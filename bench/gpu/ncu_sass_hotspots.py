#!/usr/bin/env python3
"""The SASS instructions of one kernel that warps were most often sampled
stalled on, from Nsight Compute's source page
(`ncu --section WarpStateStats --section SourceCounters --page source
--print-source sass --csv ...`): each with its share of all samples and its
largest stall-reason columns. A stall is charged to the instruction that
waits, so the instruction it names is the consumer of a slow result.
Usage: ncu_sass_hotspots.py SOURCE.csv [TOP]"""
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return 0.0


def main(path, top=30):
    lines = [line for line in open(path, errors="replace") if line.startswith('"')]
    if not lines:
        print("no source rows in", path)
        return 1
    rows = list(csv.reader(lines))
    header_at = next((i for i, r in enumerate(rows) if any("Source" == c or "Address" in c for c in r)), None)
    if header_at is None:
        print("no header in", path)
        return 1
    header, body = rows[header_at], rows[header_at + 1:]
    col = {name: i for i, name in enumerate(header)}
    samples = next((c for c in header if "Stall Sampling (All" in c), None) or \
        next((c for c in header if "Sampling" in c), None)
    source = "Source" if "Source" in col else header[1]
    address = next((c for c in header if "Address" in c), header[0])
    if samples is None:
        print("no stall-sampling column; columns:", ", ".join(header))
        return 1
    reasons = [c for c in header if c.lower().startswith("stall") or "stall_" in c.lower()]
    body = [r for r in body if len(r) == len(header)]
    total = sum(number(r[col[samples]]) for r in body) or 1.0
    executed = next((c for c in header if c.startswith("Instructions Executed")), None)
    print(f"{len(body)} SASS instructions, {total:.0f} samples ({samples})")
    for r in sorted(body, key=lambda r: number(r[col[samples]]), reverse=True)[:top]:
        share = number(r[col[samples]]) / total
        why = sorted(((number(r[col[c]]), c) for c in reasons), reverse=True)[:3]
        why_text = ", ".join(f"{c} {v:.0f}" for v, c in why if v > 0)
        ex = f" exec {number(r[col[executed]]):.0f}" if executed else ""
        print(f"{share:6.1%} {r[col[address]]:>8} {r[col[source]][:70]:<70}{ex}  {why_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30))
