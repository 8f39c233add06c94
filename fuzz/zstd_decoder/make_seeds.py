#!/usr/bin/env python3
"""Writes a seed corpus for the fuzzer: small frames made by the zstd CLI or,
without it, by Python's zstandard module; falls back to a few hand-written
frames (raw and RLE blocks). Each seed starts with the 2-byte capacity prefix."""
import os
import random
import shutil
import subprocess
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = random.Random(1)
samples = [b"", b"a" * 1000, bytes(range(256)) * 20, b"the zarr chunk decodes on a gpu " * 60,
           bytes(rng.getrandbits(8) for _ in range(3000)), b"\x00" * 70000]
def prefix(cap):
    cap = (cap + 7) // 8
    return bytes([cap & 255, (cap >> 8) & 255])
n = 0
zstd = shutil.which("zstd")
for i, s in enumerate(samples):
    for level in (1, 3, 19):
        frames = []
        if zstd:
            for extra in ([], ["--no-check"], ["-B1024"] if False else []):
                r = subprocess.run([zstd, f"-{level}", "-c", "-q"] + extra, input=s, capture_output=True)
                if r.returncode == 0:
                    frames.append(r.stdout)
        for f in frames:
            with open(os.path.join(out, f"seed_{n}"), "wb") as fh:
                fh.write(prefix(len(s)) + f)
            n += 1
# Hand-written: single-segment frame with a raw and an RLE block.
raw = b"hello zstd"
frame = b"\x28\xb5\x2f\xfd" + bytes([0x20, len(raw) + 5]) + \
        bytes([(len(raw) << 3) & 255, len(raw) >> 5, 0]) + raw + bytes([((5 << 3) | 2 | 1) & 255, 0, 0]) + b"z"
with open(os.path.join(out, f"seed_{n}"), "wb") as fh:
    fh.write(prefix(64) + frame)
print(f"wrote {n + 1} seeds to {out}")
