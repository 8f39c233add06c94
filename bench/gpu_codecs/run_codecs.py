"""Device reads of ERA5-like stores compressed as Zarr v2 stores usually are: Blosc (LZ4
inside, byte shuffle, clevel 5: zarr-python's default) and numcodecs LZ4, with the GPU
decoders forced on (ZARRGPU_GPU_BLOSC=1 / ZARRGPU_GPU_LZ4=1), forced off (CPU threads:
c-blosc / liblz4, =0) and under the automatic rule (auto). Issue 36.

    python3 bench/gpu_codecs/run_codecs.py --bin build [--gb 2] [--repeat 5] [--out DIR]

Each store: `zarrgpu generate era5 --variant raw` (one time step of 4 x 721 x 1440 float32 per
chunk, 16.6 MB), re-encoded with zarrgpu's writer into a v2 array `data` with the codec.
Besides that large-chunk layout, a small-chunk one (1 x 1 x 181 x 360, 260 KB) shows the
decoders where a batch holds thousands of chunks. Each mode runs in its own process (the
setting comes from the environment, as a user sets it); a process pins its staging ring
with one untimed read, then times --repeat full reads into GPU memory. Prints the median
GB/s (decoded bytes / wall time) per store and mode, checks that every mode read the same
bytes (SHA-256 of the array), and writes codecs.json and codecs.md under --out.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CODECS = {
    "blosc_lz4_shuffle": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
    "lz4": {"id": "lz4", "acceleration": 1},
}
LAYOUTS = {"large": None, "small": (1, 1, 181, 360)}  # None: the generated chunks (one time step)
MODES = {"gpu": "1", "cpu": "0", "auto": "auto"}


def make_stores(bin_dir: Path, data: Path, gb: float) -> dict[str, Path]:
    import zarrgpu

    data.mkdir(parents=True, exist_ok=True)
    step_bytes = 4 * 721 * 1440 * 4
    steps = max(2, int(gb * 1e9 / step_bytes))
    raw = data / f"raw_{steps}.zarr"
    if not (raw / ".zattrs").exists() and not (raw / "zarr.json").exists():
        t = time.perf_counter()
        subprocess.run([str(bin_dir / "tools/zarrgpu/zarrgpu"), "generate", "era5", str(raw), "--variant", "raw",
                        "--format", "2", "--time", str(steps), "--lat", "721", "--lon", "1440", "--no-fsync",
                        "--quiet", "--overwrite"], check=True)
        print(f"generated {raw} ({steps} steps) in {time.perf_counter() - t:.1f}s", flush=True)
    src = zarrgpu.open(str(raw))["data"]
    stores = {}
    for codec, compressor in CODECS.items():
        for layout, chunks in LAYOUTS.items():
            name = f"{codec}_{layout}"
            path = data / f"{name}_{steps}.zarr"
            stores[name] = path
            if (path / ".zarray").exists():
                continue
            t = time.perf_counter()
            dst = zarrgpu.create_array(str(path), shape=src.shape, dtype=src.dtype, chunks=chunks or src.chunks,
                                       zarr_format=2, compressor=compressor, overwrite=True)
            for t0 in range(0, src.shape[0], 8):  # several chunks a write: encoded in parallel
                dst[t0:t0 + 8] = src[t0:t0 + 8]
            print(f"wrote {path} in {time.perf_counter() - t:.1f}s", flush=True)
    return stores


def worker(store: str, repeat: int) -> None:
    """One mode (from the environment): the timed reads of one store, as JSON on stdout."""
    import zarrgpu

    a = zarrgpu.open(store)
    first = a.read(device="cuda")  # pins the staging ring; its bytes are the mode's result
    digest = hashlib.sha256(first.get().tobytes()).hexdigest()
    del first
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        d = a.read(device="cuda")
        times.append(time.perf_counter() - t)
        del d
    r = zarrgpu.last_read_report()
    print(json.dumps({"seconds": times, "sha256": digest, "bytes": r.bytes_decoded, "stored": r.bytes_read,
                      "decoder": r.decoder_detail, "io": r.io_path}))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default="build")
    p.add_argument("--gb", type=float, default=2.0, help="decoded GB per store")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--data", default="/tmp/zarrgpu_codecs")
    p.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    p.add_argument("--worker", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:
        worker(a.worker, a.repeat)
        return 0
    data, out = Path(a.data), Path(a.out)
    data.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    stores = make_stores(Path(a.bin), data, a.gb)
    results, ok = {}, True
    for name, path in stores.items():
        row = {}
        for mode, value in MODES.items():
            env = {k: v for k, v in os.environ.items() if k not in ("ZARRGPU_GPU_BLOSC", "ZARRGPU_GPU_LZ4")}
            env["ZARRGPU_GPU_BLOSC" if name.startswith("blosc") else "ZARRGPU_GPU_LZ4"] = value
            run = subprocess.run([sys.executable, __file__, "--worker", str(path), "--repeat", str(a.repeat)],
                                 env=env, capture_output=True, text=True, timeout=300)
            if run.returncode != 0:
                print(f"{name} {mode}: failed\n{run.stderr[-2000:]}", flush=True)
                ok = False
                continue
            r = json.loads(run.stdout.strip().splitlines()[-1])
            r["gbps_median"] = r["bytes"] / statistics.median(r["seconds"]) / 1e9
            row[mode] = r
            print(f"{name:22s} {mode:4s} {r['gbps_median']:7.2f} GB/s decoded "
                  f"(stored {r['stored'] / 1e9:.2f} GB; {r['decoder']})", flush=True)
        digests = {m: r["sha256"] for m, r in row.items()}
        same = len(set(digests.values())) == 1 and len(digests) == len(MODES)
        ok = ok and same
        print(f"{name}: results {'match' if same else 'DIFFER: ' + json.dumps(digests)}", flush=True)
        results[name] = row
    (out / "codecs.json").write_text(json.dumps(results, indent=1))
    lines = [f"# GPU LZ4 / Blosc decoders on the device read ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
             "", "`python3 bench/gpu_codecs/run_codecs.py` (bench/gpu/run.sh codecs); median of "
             f"{a.repeat} warm full reads into GPU memory, decoded GB/s.", "",
             "| store | GPU decoder | CPU threads | auto | GPU / CPU | same bytes |", "|---|---|---|---|---|---|"]
    for name, row in results.items():
        g = {m: row.get(m, {}).get("gbps_median", float("nan")) for m in MODES}
        same = len({r["sha256"] for r in row.values()}) == 1 and len(row) == len(MODES)
        lines.append(f"| {name} | {g['gpu']:.2f} | {g['cpu']:.2f} | {g['auto']:.2f} | {g['gpu'] / g['cpu']:.2f}x | "
                     f"{'yes' if same else 'NO'} |")
    (out / "codecs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
