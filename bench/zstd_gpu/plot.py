#!/usr/bin/env python3
"""Plot decoded GB/s against chunk size from zstd_gpu.csv into a PNG.

Uses matplotlib when it is installed; otherwise draws the same lines with a
tiny PNG writer (zlib only), legend colours listed on stdout.
usage: plot.py RESULTS.csv OUT.png
"""
import csv
import math
import struct
import sys
import zlib

SERIES = [("zarrgpu_gbps", "zarrgpu GPU"), ("nvcomp_gbps", "nvCOMP GPU"), ("libzstd_cpu_gbps", "libzstd CPU")]
COLORS = [(31, 119, 180), (214, 39, 40), (120, 120, 120)]
DASH_BY_LEVEL = {1: 0, 3: 1, 9: 2, 19: 3}


def load(path):
    header = None
    rows = []
    meta = ""
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                meta = line[1:].strip()
                continue
            if header is None:
                header = line.strip().split(",")
                continue
            rows.append(dict(zip(header, line.strip().split(","))))
    return meta, rows


def with_matplotlib(meta, rows, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 5.5))
    levels = sorted({int(r["level"]) for r in rows})
    styles = ["-", "--", ":", "-."]
    for (key, name), color in zip(SERIES, COLORS):
        for li, level in enumerate(levels):
            pts = [(int(r["chunk_kib"]), float(r[key])) for r in rows if int(r["level"]) == level and float(r[key]) >= 0]
            if not pts:
                continue
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], styles[li % 4], marker="o",
                    color=[c / 255 for c in color], label=f"{name}, level {level}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("chunk size (KiB)")
    ax.set_ylabel("decoded GB/s")
    ax.set_title("Batched Zstandard decode, ERA5-like float32\n" + meta[:110], fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def write_png(path, w, h, pixels):
    raw = b"".join(b"\x00" + bytes(pixels[y * w * 3:(y + 1) * w * 3]) for y in range(h))
    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def without_matplotlib(rows, out):
    w, h, m = 800, 500, 50
    px = bytearray([255] * (w * h * 3))
    def put(x, y, c):
        if 0 <= x < w and 0 <= y < h:
            i = (y * w + x) * 3
            px[i:i + 3] = bytes(c)
    def line(x0, y0, x1, y1, c, dash=0):
        n = max(abs(x1 - x0), abs(y1 - y0), 1)
        for k in range(n + 1):
            if dash and (k // (3 * dash)) % 2:
                continue
            x = round(x0 + (x1 - x0) * k / n)
            y = round(y0 + (y1 - y0) * k / n)
            for dy in (0, 1):
                put(x, y + dy, c)
    sizes = sorted({int(r["chunk_kib"]) for r in rows})
    ymax = max([float(r[k]) for r in rows for k, _ in SERIES if float(r[k]) > 0] + [1.0]) * 1.1
    lx = lambda s: m + (math.log2(s) - math.log2(sizes[0])) / max(1e-9, math.log2(sizes[-1]) - math.log2(sizes[0])) * (w - 2 * m)
    ly = lambda v: h - m - v / ymax * (h - 2 * m)
    line(m, h - m, w - m, h - m, (0, 0, 0))
    line(m, m, m, h - m, (0, 0, 0))
    for gb in range(0, int(ymax) + 1, max(1, int(ymax) // 10)):
        line(m, int(ly(gb)), w - m, int(ly(gb)), (225, 225, 225))
    for (key, name), color in zip(SERIES, COLORS):
        for level in sorted({int(r["level"]) for r in rows}):
            pts = sorted((int(r["chunk_kib"]), float(r[key])) for r in rows if int(r["level"]) == level and float(r[key]) >= 0)
            for (a, va), (b, vb) in zip(pts, pts[1:]):
                line(int(lx(a)), int(ly(va)), int(lx(b)), int(ly(vb)), color, DASH_BY_LEVEL.get(level, 0))
    write_png(out, w, h, px)
    print("plot (no matplotlib): x = chunk KiB (log2) " + ", ".join(map(str, sizes)) +
          f"; y = 0..{ymax:.0f} GB/s, grid every {max(1, int(ymax) // 10)} GB/s; blue zarrgpu, red nvCOMP, grey libzstd;"
          " solid level 1, dashes longer for higher levels")


def main():
    meta, rows = load(sys.argv[1])
    if not rows:
        print("no rows")
        return
    try:
        with_matplotlib(meta, rows, sys.argv[2])
    except ImportError:
        without_matplotlib(rows, sys.argv[2])
    print("wrote", sys.argv[2])


if __name__ == "__main__":
    main()
