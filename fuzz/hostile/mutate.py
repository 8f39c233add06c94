"""Mutation fuzzing of whole stores through the zarrgpu command, for a bounded time.

    python fuzz/hostile/mutate.py --cli build-asan/tools/zarrgpu/zarrgpu --seconds 600 --json mutate.json

Seeds are the conformance corpus (tests/corpus/data). Each execution copies a
seed, applies one to four mutations (JSON-aware changes of a metadata
document: a number swapped for an edge value, a key removed, a value's type
changed, a codec duplicated or dropped; or bytes of a chunk flipped, cut or
extended), then runs `zarrgpu info` and `zarrgpu cat` on it (and `convert`
one time in eight) with the probe's timeout and memory watch. Outcomes are
classified as in probe.py; a failure (crash, hang, internal error,
allocation beyond the metadata) is bucketed by its kind and the first line
of its report, and each distinct one keeps its store under --findings.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import probe  # noqa: E402

EDGE_NUMBERS = [0, -1, 1, 2, 3, 7, 255, 256, 65535, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**53, 2**62, 2**63 - 1,
                2**63, 2**64 - 1, 2**64, -(2**63), 0.5, 1e308, -0.0]
EDGE_VALUES = [None, True, "", "x" * 300, [], {}, [1, 2, 3], {"name": "zstd"}, "<f8", "|S0", "<U0", "bytes"]


def json_paths(doc, prefix=()):
    yield prefix, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from json_paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from json_paths(v, prefix + (i,))


def set_at(doc, path, value):
    for p in path[:-1]:
        doc = doc[p]
    doc[path[-1]] = value


def mutate_json(doc, rng: random.Random):
    paths = [p for p, _ in json_paths(doc) if p]
    if not paths:
        return doc
    path = rng.choice(paths)
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    current = parent[path[-1]]
    r = rng.random()
    if r < 0.45:
        set_at(doc, path, rng.choice(EDGE_NUMBERS) if not isinstance(current, str) or rng.random() < 0.3
               else rng.choice(EDGE_VALUES))
    elif r < 0.6 and isinstance(parent, dict):
        del parent[path[-1]]
    elif r < 0.7 and isinstance(parent, list):
        parent.insert(rng.randrange(len(parent) + 1), json.loads(json.dumps(current)))
    elif r < 0.8 and isinstance(parent, list):
        parent.pop(path[-1])
    else:
        set_at(doc, path, rng.choice(EDGE_VALUES))
    return doc


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    r = rng.random()
    if not b or r < 0.1:
        return bytes(b) + rng.randbytes(rng.randrange(1, 64))
    if r < 0.5:
        for _ in range(rng.randrange(1, 9)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif r < 0.65:
        del b[rng.randrange(len(b)):]
    elif r < 0.75:
        i = rng.randrange(len(b))
        b[i:i] = rng.randbytes(rng.randrange(1, 32))
    elif r < 0.85:
        i = rng.randrange(max(1, len(b) - 8))
        b[i:i + 8] = rng.choice([b"\xff" * 8, b"\0" * 8, (2**63).to_bytes(8, "little"), (2**32).to_bytes(8, "little")])
    else:
        i, j = sorted(rng.randrange(len(b)) for _ in range(2))
        b[i:j] = bytes(j - i)
    return bytes(b)


META = {"zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"}


def mutate_store(store: Path, rng: random.Random) -> list[str]:
    files = [p for p in store.rglob("*") if p.is_file()]
    metas = [p for p in files if p.name in META]
    chunks = [p for p in files if p.name not in META]
    done = []
    for _ in range(rng.randrange(1, 5)):
        if metas and (not chunks or rng.random() < 0.6):
            p = rng.choice(metas)
            try:
                doc = json.loads(p.read_bytes())
                p.write_text(json.dumps(mutate_json(doc, rng)))
                done.append(f"json {p.relative_to(store)}")
            except ValueError:
                p.write_bytes(mutate_bytes(p.read_bytes(), rng))
                done.append(f"bytes {p.relative_to(store)}")
        elif chunks:
            p = rng.choice(chunks)
            p.write_bytes(mutate_bytes(p.read_bytes(), rng))
            done.append(f"bytes {p.relative_to(store)}")
    return done


def array_ndim(store: Path) -> int | None:
    for name in ("zarr.json", ".zarray"):
        try:
            shape = json.loads((store / name).read_text())["shape"]
            return len(shape) if isinstance(shape, list) else None
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def bucket(outcome: str, detail: str) -> str:
    """A failure's identity: its kind and its report's first telling line, numbers and paths removed."""
    line = detail.strip().splitlines()[0] if detail.strip() else ""
    m = re.search(r"(ERROR: AddressSanitizer: [\w-]+|runtime error: [^\n]{0,80}|[\w/]+\.(?:cpp|hpp):\d+)", detail)
    key = m.group(1) if m else line
    key = re.sub(r"/\S+", "PATH", key)
    key = re.sub(r"\d+", "N", key)
    return f"{outcome}: {key[:160]}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--corpus", default=str(HERE.parent.parent / "tests" / "corpus" / "data"))
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--findings", default=os.path.join(tempfile.gettempdir(), "zarrgpu-mutate-findings"))
    ap.add_argument("--json")
    args = ap.parse_args()
    cli = str(Path(args.cli).resolve())
    env = {**os.environ, "ZARRGPU_THREADS": "2", "MALLOC_ARENA_MAX": "2"}
    limit_as = "asan" not in cli and "fuzz" not in cli
    if not limit_as:
        env = probe.sanitized_env(env)
    seeds = sorted(Path(args.corpus).glob("*.zarr"))
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="zarrgpu-mutate-"))
    findings = Path(args.findings)
    counts, buckets = collections.Counter(), {}
    execs, start = 0, time.monotonic()
    while time.monotonic() - start < args.seconds:
        seed = rng.choice(seeds)
        store = work / seed.name
        shutil.rmtree(store, ignore_errors=True)
        shutil.copytree(seed, store)
        mutations = mutate_store(store, rng)
        cat = [cli, "cat", str(store), "--out", str(work / "o.npy")]
        ndim = array_ndim(store)
        if ndim:  # a corner: a whole-array read of a mutated 2^40-element shape is a request for terabytes
            cat += ["--select", ",".join(["0:2"] * ndim)]
        commands = [("cli info", [cli, "info", str(store)]), ("cli cat", cat)]
        if rng.random() < 0.125:
            commands.append(("cli convert", [cli, "convert", str(store), str(work / "dst.zarr"), "--quiet", "--no-fsync",
                                             "--memory", "64MiB"]))
        for iface, argv in commands:
            r = probe.run_cli(argv, env, args.timeout, limit_as)
            execs += 1
            outcome, detail = probe.classify(iface, r, store, False, probe.ALLOWANCE)
            counts[outcome] += 1
            if outcome in ("crash", "hang", "internal", "alloc"):
                b = bucket(outcome, r.get("stderr", "") if outcome != "alloc" else detail)
                if b not in buckets:
                    buckets[b] = {"interface": iface, "seed": seed.name, "mutations": mutations, "detail": detail[-1500:]}
                    dest = findings / f"{len(buckets):03d}-{seed.stem}"
                    shutil.rmtree(dest, ignore_errors=True)
                    shutil.copytree(store, dest, symlinks=True)
                    (dest.parent / f"{dest.name}.txt").write_text(json.dumps(buckets[b], indent=1))
                    print(f"new failure {b} ({iface}, {seed.name}: {mutations})", flush=True)
        shutil.rmtree(work / "dst.zarr", ignore_errors=True)
        (work / "o.npy").unlink(missing_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    summary = {"cli": cli, "seconds": round(time.monotonic() - start), "executions": execs, "outcomes": dict(counts),
               "distinct_failures": len(buckets), "failures": buckets,
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    print(json.dumps({k: v for k, v in summary.items() if k != "failures"}))
    for b in buckets:
        print("  ", b)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    return 1 if buckets else 0


if __name__ == "__main__":
    sys.exit(main())
