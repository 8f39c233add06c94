"""Time to open one member of a group without consolidated metadata, by chunk count
(issue 34, item 5): zarrgpu against zarr-python, on the local file system.

    .venv/bin/python bench/metadata_open/open_member.py [--chunks 20000] [--repeat 30] [--out FILE.md]

The store: a format 3 group (no consolidated metadata) with a 1-D array "t2m" of
N one-element chunks, N files, and a small "lat" array. Each measurement opens the
group and then "t2m" (`zarrgpu.open(root)["t2m"]`, `zarr.open_group(root)["t2m"]`),
and opens "t2m" directly by path; the page cache is warm (every open is repeated)."""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import zarr

import zarrgpu


def make_store(root: Path, chunks: int) -> None:
    g = zarrgpu.create_group(root, zarr_format=3)
    a = g.create_array("t2m", shape=(chunks,), dtype="f4", chunks=(1,), codecs=[{"name": "bytes", "configuration": {"endian": "little"}}],
                       dimension_names=("time",))
    a[...] = np.arange(chunks, dtype="f4") + 1  # every chunk stored
    g.create_array("lat", shape=(3,), dtype="f4", dimension_names=("lat",))[...] = np.zeros(3, "f4")


def median_ms(fn, repeat: int) -> float:
    fn()  # warm
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.chunks:
            root = Path(tmp) / f"s{n}.zarr"
            make_store(root, n)
            assert len(list((root / "t2m" / "c").iterdir())) == n
            cases = {
                "group, then member: zarrgpu": lambda: zarrgpu.open(root)["t2m"].shape,
                "group, then member: zarr-python": lambda: zarr.open_group(root, mode="r")["t2m"].shape,
                "member by path: zarrgpu": lambda: zarrgpu.open(root / "t2m").shape,
                "member by path: zarr-python": lambda: zarr.open_array(root / "t2m", mode="r").shape,
            }
            for name, fn in cases.items():
                rows.append((n, name, median_ms(fn, args.repeat)))
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"# Opening one member without consolidated metadata ({stamp}, {platform.node()}, "
             f"{platform.processor() or platform.machine()}, zarr {zarr.__version__})", "",
             "`.venv/bin/python bench/metadata_open/open_member.py` (median of "
             f"{args.repeat}, warm page cache)", "", "| chunks | what | ms |", "| ---: | --- | ---: |"]
    lines += [f"| {n} | {name} | {ms:.2f} |" for n, name, ms in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
