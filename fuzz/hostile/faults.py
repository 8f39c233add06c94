"""The probe's write cases: links that could lead a write outside the store,
killed converts and overwrites, a shard rewritten under its readers, the
umask, leftovers of killed writes.

Each function returns run records like the read cases'; a run whose
invariant fails (a store lost, a read mixing two versions of a shard, a
wrong mode, a leftover kept) is `lost`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

PREAMBLE = f"""
import json, os, sys
sys.path.insert(0, {str(HERE)!r})
import python_server
import numpy as np
import zarrgpu
def main():
{{body}}
try:
    out = {{"ok": main()}}
except BaseException as e:
    out = python_server.describe(e)
print(json.dumps(out, default=str))
"""


def python_snippet(body: str, env: dict, timeout: float) -> dict:
    code = PREAMBLE.replace("{body}", "\n".join("    " + line for line in body.strip().splitlines()))
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"killed": "timeout"}
    if r.returncode < 0:
        return {"signal": -r.returncode, "stderr": r.stderr[-400:]}
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": "no result", "zarrgpu": False, "message": r.stderr[-400:], "module": "", "origin": ""}


def tree(root: Path) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            st = p.lstat()
            out[str(p.relative_to(root))] = (st.st_mode, st.st_size, p.read_bytes() if p.is_file() and not p.is_symlink() else None)
    return out


def record(case, iface, outcome, detail="") -> dict:
    return {"case": case, "interface": iface, "outcome": outcome, "detail": detail, "seconds": 0, "peak_rss_mib": 0}


def outcome_of(res: dict, outside_changed: bool, store: Path, expect_error: bool) -> tuple[str, str]:
    if res.get("killed"):
        return "hang", ""
    if res.get("signal"):
        return "crash", f"signal {res['signal']} {res.get('stderr', '')}"
    if outside_changed:
        return "outside", json.dumps(res)[:300]
    if "ok" in res:
        return ("lost", "wrote through the link without an error") if expect_error else ("ok", "")
    if not res.get("zarrgpu") or res["error"] == "InternalError":
        return "internal", f"{res['error']}: {res['message'][:300]}"
    return ("clear" if store.name in res["message"] or store.name in str(res.get("store")) else "unnamed",
            f"{res['error']}: {res['message'][:300]}")


def link_cases(args, env, py_env, work: Path) -> list[dict]:
    """Python and CLI writes into stores whose members are links to `outside`."""
    runs = []
    cases = {
        # name: (setup(store, outside) -> None, python body or CLI argv builder, expect an error)
        "write_symlinked_chunk_dir": (
            lambda s, o: (_array(s, py_env), os.symlink(o, s / "c")),
            "a = zarrgpu.open(STORE, mode='r+')\na[:] = np.arange(8, dtype='u1')", True),
        "write_chunk_file_symlink": (
            lambda s, o: (_array(s, py_env), (s / "c").mkdir(), os.symlink(o / "precious.txt", s / "c" / "0")),
            "a = zarrgpu.open(STORE, mode='r+')\na[:] = np.arange(8, dtype='u1')", False),
        "overwrite_symlinked_array_dir": (
            lambda s, o: (_group(s, py_env), (o / "zarr.json").write_text("{}"), os.symlink(o, s / "arr")),
            "zarrgpu.create_array(STORE, path='arr', shape=[4], chunks=[4], dtype='u1', overwrite=True)", True),
        "attrs_through_symlinked_zarr_json": (
            lambda s, o: (_array(s, py_env), shutil.copy(s / "zarr.json", o / "zarr.json"),
                          (s / "zarr.json").unlink(), os.symlink(o / "zarr.json", s / "zarr.json")),
            "a = zarrgpu.open(STORE, mode='r+')\na.attrs['x'] = 1", False),
        "resize_through_symlinked_array_dir": (
            lambda s, o: (_group(s, py_env), _array(o / "arr", py_env), os.symlink(o / "arr", s / "arr")),
            "a = zarrgpu.open(STORE, path='arr', mode='r+')\na.resize([16])", True),
        "write_through_symlinked_array_dir": (
            lambda s, o: (_group(s, py_env), _array(o / "arr", py_env), os.symlink(o / "arr", s / "arr")),
            "a = zarrgpu.open(STORE, path='arr', mode='r+')\na[:] = np.arange(8, dtype='u1')", True),
        "cli_consolidate_symlinked_root_zarr_json": (
            lambda s, o: (_group(s, py_env), shutil.copy(s / "zarr.json", o / "zarr.json"), (s / "zarr.json").unlink(),
                          os.symlink(o / "zarr.json", s / "zarr.json")),
            ["consolidate", "STORE"], False),
        "cli_convert_overwrite_dst_symlink_to_outside": (
            lambda s, o: (_array(s, py_env), (o / "zarr.json").write_text("{}")),
            ["convert", "STORE", "LINK", "--overwrite", "--quiet"], False),
        "cli_append_symlinked_chunk_dir": (
            lambda s, o: (_era5(s, args, env), shutil.move(str(s / "data" / "c"), str(o / "c")), os.symlink(o / "c", s / "data" / "c")),
            ["append", "SRC", "STORE", "--dim", "time"], True),
    }
    for name, (setup, action, expect_error) in cases.items():
        case_dir = work / ("fault__" + name)
        store, outside = case_dir / "store.zarr", case_dir / "outside"
        outside.mkdir(parents=True)
        (outside / "precious.txt").write_text("not zarr; nothing may change me\n")
        setup(store, outside)
        before = tree(outside)
        if isinstance(action, str):
            res = python_snippet(f"STORE = {str(store)!r}\n" + action, py_env, args.timeout)
            iface = "python write"
        else:
            link = case_dir / "link.zarr"
            os.symlink(outside, link)
            src = case_dir / "src.zarr"
            if "SRC" in action:
                _era5(src, args, env)
            argv = [args.cli] + [str(store) if a == "STORE" else str(link) if a == "LINK" else str(src) if a == "SRC" else a
                                 for a in action]
            try:
                r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=args.timeout)
                res = ({"signal": -r.returncode, "stderr": r.stderr[-400:]} if r.returncode < 0 else
                       {"ok": True} if r.returncode == 0 else
                       {"error": f"exit {r.returncode}", "zarrgpu": r.returncode in {2, 3, 4, 5, 6, 7},
                        "message": r.stderr[-400:], "store": None})
            except subprocess.TimeoutExpired:
                res = {"killed": "timeout"}
            iface = "cli write"
        outcome, detail = outcome_of(res, tree(outside) != before, store, expect_error)
        runs.append(record(name, iface, outcome, detail))
        shutil.rmtree(case_dir, ignore_errors=True)
    return runs


def _group(store: Path, env) -> None:
    store.mkdir(parents=True, exist_ok=True)
    (store / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}}))


def _array(store: Path, env) -> None:
    store.mkdir(parents=True, exist_ok=True)
    (store / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {}}))


def _era5(store: Path, args, env) -> None:
    subprocess.run([args.cli, "generate", "era5", str(store), "--time", "4", "--quiet", "--no-fsync"], check=True, env=env,
                   capture_output=True)


def kill_cases(args, env, work: Path) -> list[dict]:
    """convert and convert --overwrite killed at increasing delays: a store stays under the name
    (the old one or the new one, whole), and the next run leaves no leftovers."""
    runs = []
    case_dir = work / "fault__kills"
    src, dst = case_dir / "src.zarr", case_dir / "dst.zarr"
    case_dir.mkdir(parents=True)
    subprocess.run([args.cli, "generate", "era5", str(src), "--time", "24", "--quiet", "--no-fsync"], check=True, env=env)
    for overwrite in (False, True):
        for delay in (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2, 2.0):
            name = f"{'overwrite' if overwrite else 'convert'}_killed_after_{delay}s"
            if overwrite and not dst.exists():
                subprocess.run([args.cli, "convert", str(src), str(dst), "--quiet"], check=True, env=env)
            if not overwrite and dst.exists():
                shutil.rmtree(dst)
            argv = [args.cli, "convert", str(src), str(dst), "--quiet", "--chunks", "time=1"]
            p = subprocess.Popen(argv + (["--overwrite"] if overwrite else []), env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.wait()
            problems = []
            if overwrite or dst.exists():
                r = subprocess.run([args.cli, "info", str(dst)], capture_output=True, env=env)
                if r.returncode != 0:
                    # only a file system without RENAME_EXCHANGE may need the next run's repair
                    fix = subprocess.run(argv, capture_output=True, text=True, env=env)
                    if "restored" not in fix.stderr:
                        problems.append(f"no whole store under the name: {r.stderr[-200:]!r}")
            r = subprocess.run(argv + ["--overwrite"], capture_output=True, text=True, env=env)
            if r.returncode != 0:
                problems.append(f"the next convert failed: {r.stderr[-200:]}")
            left = sorted(p.name for p in case_dir.iterdir() if p.name not in ("src.zarr", "dst.zarr"))
            left += [str(p.relative_to(dst)) for p in dst.rglob("*zarrgpu-tmp*")]
            if left:
                problems.append(f"leftovers after the next run: {left}")
            runs.append(record(name, "cli kill", "lost" if problems else "ok", "; ".join(problems)))
    shutil.rmtree(case_dir, ignore_errors=True)
    return runs


# Run as its own process, as the rewriting writer would be.
SHARD_REWRITER = HERE / "shard_rewriter.py"


def concurrent_shard_case(args, py_env, work: Path, reads: int = 400) -> list[dict]:
    case_dir = work / "fault__concurrent_shard"
    store = case_dir / "store.zarr"
    body = f"""
import subprocess
store = {str(store)!r}
versions = []
for value in (1, 2):
    a = zarrgpu.create_array(store, shape=[4096], chunks=[64], shards=[4096], dtype="int32", overwrite=True)
    a[:] = np.full(4096, value, dtype="i4") + np.arange(4096, dtype="i4") * (value - 1)
    versions.append(open(store + "/c/0", "rb").read())
open(store + ".A", "wb").write(versions[0])
open(store + ".B", "wb").write(versions[1])
w = subprocess.Popen([sys.executable, {str(SHARD_REWRITER)!r}, store + "/c/0", store + ".A", store + ".B", "8"])
one, two = np.full(4096, 1, dtype="i4"), np.full(4096, 2, dtype="i4") + np.arange(4096, dtype="i4")
a = zarrgpu.open(store)
counts = {{"one": 0, "two": 0, "mixed": 0, "errors": 0}}
for _ in range({reads}):
    try:
        got = a[:]
    except zarrgpu.ZarrgpuError:
        counts["errors"] += 1
        continue
    counts["one" if np.array_equal(got, one) else "two" if np.array_equal(got, two) else "mixed"] += 1
w.wait()
return counts
"""
    case_dir.mkdir(parents=True)
    res = python_snippet(body, py_env, args.timeout * 2)
    shutil.rmtree(case_dir, ignore_errors=True)
    counts = res.get("ok")
    if not isinstance(counts, dict):
        return [record("concurrent_shard_rewrite", "python read", "internal", json.dumps(res)[:300])]
    bad = counts["mixed"] + counts["errors"]
    return [record("concurrent_shard_rewrite", "python read", "lost" if bad else "ok", json.dumps(counts))]


def umask_and_leftover_cases(args, env, py_env, work: Path) -> list[dict]:
    runs = []
    case_dir = work / "fault__umask"
    case_dir.mkdir(parents=True)
    src = case_dir / "src.zarr"
    _era5(src, args, env)
    for mask, want in ((0o022, 0o755), (0o027, 0o750), (0o077, 0o700)):
        dst = case_dir / f"dst{mask:o}.zarr"
        r = subprocess.run(["sh", "-c", f"umask {mask:03o} && exec {args.cli} convert {src} {dst} --quiet"],
                           capture_output=True, text=True, env=env)
        got = stat.S_IMODE(dst.stat().st_mode) if dst.exists() else None
        runs.append(record(f"convert_umask_{mask:03o}", "cli write", "ok" if r.returncode == 0 and got == want else "lost",
                           f"mode {oct(got) if got is not None else None}, want {oct(want)}"))
        p = case_dir / f"py{mask:o}.zarr"
        res = python_snippet(f"os.umask({mask})\nzarrgpu.create_array({str(p)!r}, shape=[8], chunks=[4], dtype='u1')[:] = 1",
                             py_env, args.timeout)
        modes = {stat.S_IMODE(x.stat().st_mode) for x in [p, *p.rglob("*")] if x.is_dir()} if p.exists() else set()
        fmodes = {stat.S_IMODE(x.stat().st_mode) for x in p.rglob("*") if x.is_file()} if p.exists() else set()
        ok = "ok" in res and modes == {want} and fmodes == {want & 0o666}
        runs.append(record(f"python_create_umask_{mask:03o}", "python write", "ok" if ok else "lost",
                           f"dirs {sorted(map(oct, modes))}, files {sorted(map(oct, fmodes))}, want {oct(want)}"))
    # a stale temporary of a dead writer is removed by the next write
    store = case_dir / "left.zarr"
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = store / "c" / f".0.zarrgpu-tmp.{dead.pid}.3"
    res = python_snippet(f"""
a = zarrgpu.create_array({str(store)!r}, shape=[8], chunks=[4], dtype="u1")
os.makedirs({str(store / 'c')!r}, exist_ok=True)
open({str(stale)!r}, "wb").write(b"half")
zarrgpu.open({str(store)!r}, mode="r+")[:] = np.arange(8, dtype="u1")
""", py_env, args.timeout)
    runs.append(record("python_stale_temporary_removed", "python write",
                       "ok" if "ok" in res and not stale.exists() else "lost", json.dumps(res)[:200]))
    shutil.rmtree(case_dir, ignore_errors=True)
    return runs


def run_all(args, env, py_env, work: Path, only: str | None) -> list[dict]:
    runs = []
    for fn in (lambda: link_cases(args, env, py_env, work), lambda: kill_cases(args, env, work),
               lambda: concurrent_shard_case(args, py_env, work), lambda: umask_and_leftover_cases(args, env, py_env, work)):
        got = fn()
        runs += [r for r in got if not only or only in r["case"]]
    return runs
