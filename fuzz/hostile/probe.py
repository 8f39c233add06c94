"""The hostile-input probe of issue 33: every case through every interface, classified.

    python fuzz/hostile/probe.py --cli build/tools/zarrgpu/zarrgpu --json out.json
    python fuzz/hostile/probe.py --cli build-asan/tools/zarrgpu/zarrgpu \
        --pydir /tmp/asan-py --preload "$(clang -print-file-name=libclang_rt.asan-x86_64.so)" --json asan.json

Each case (fuzz/hostile/cases.py; the write and kill cases in faults.py) is
built in its own directory beside an `outside` sentinel directory, then read
through `zarrgpu info`, `zarrgpu cat`, `zarrgpu convert`, `zarrgpu.open()[...]`
and `xarray.open_dataset(engine="zarrgpu").load()`, each in its own process
with a timeout and a memory watch. A run is classified (first match wins):

  crash      killed by a signal (SIGSEGV, or SIGABRT from a sanitizer report)
  hang       still running at the timeout
  alloc      peak RSS above the baseline by more than the allowance, or an
             out-of-memory error (MemoryError, std::bad_alloc): the probe's
             stores allow reads of a few MiB at most
  outside    anything outside the store (and the run's output) changed
  internal   an error that is not a documented kind (exit 1, 8 or 9, a Python
             exception that is not a zarrgpu error other than InternalError
             or xarray's own for a missing dimension)
  unnamed    a documented error whose message does not name the store
  clear      a documented error naming the store
  ok         success
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases as case_lib  # noqa: E402
import faults  # noqa: E402

DOCUMENTED_EXIT = {2, 3, 4, 5, 6, 7, 10}  # tools/zarrgpu/README.md, "Exit codes"
ALLOWANCE = 512 << 20                  # RSS above the baseline that no case's metadata allows
RSS_CAP = 6 << 30                      # a run over this is stopped (and is an `alloc`)
OOM_WORDS = ("bad_alloc", "out of memory", "MemoryError", "allocation-size-too-big", "cannot allocate")
# A sanitized run has no RLIMIT_AS (its shadow takes terabytes of address
# space); its ceiling is the sanitizer's largest allocation. A failed `new`
# there aborts instead of throwing std::bad_alloc, so the library is told that
# ceiling (ZARRGPU_MEMORY_LIMIT), as it reads RLIMIT_AS itself in a Release
# run: a chunk between the ceiling and the machine's memory is then refused as
# resource exhausted, not an abort (an 8 GiB chunk on a 23 GiB machine was).
SANITIZER_ALLOCATION_MB = 6144


def sanitized_env(env: dict) -> dict:
    """env with the sanitizer options of the probe's sanitized runs and the library told their ceiling."""
    env = dict(env)
    env.setdefault("ASAN_OPTIONS", "abort_on_error=1:detect_leaks=0:allocator_may_return_null=1:"
                                   f"max_allocation_size_mb={SANITIZER_ALLOCATION_MB}")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    env.setdefault("ZARRGPU_MEMORY_LIMIT", f"{SANITIZER_ALLOCATION_MB}M")
    return env


def snapshot(root: Path, skip: set[str]) -> dict:
    """Names, types, sizes and contents' hashes of everything under root but the skipped top-level entries."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel = os.path.relpath(dirpath, root)
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d not in skip]
            filenames = [f for f in filenames if f not in skip]
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            entry = (st.st_mode, st.st_size)
            if os.path.isfile(p) and not os.path.islink(p) and st.st_size < (64 << 20):
                with open(p, "rb") as f:
                    entry += (hashlib.sha256(f.read()).hexdigest(),)
            out[os.path.relpath(p, root)] = entry
    return out


def rss_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError):
        return 0


def run_cli(argv: list[str], env: dict, timeout: float, limit_as: bool) -> dict:
    def limits():
        os.setsid()
        if limit_as:
            resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
    start = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, preexec_fn=limits)
    os.set_blocking(p.stderr.fileno(), False)
    err, killed = b"", None
    while True:
        chunk = p.stderr.read()
        if chunk:
            err += chunk[: max(0, 200_000 - len(err))]
        done, status, usage = os.wait4(p.pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > timeout:
            killed = "timeout"
        elif rss_of(p.pid) > RSS_CAP:
            killed = "rss_cap"
        if killed:
            os.killpg(p.pid, signal.SIGKILL)
            _, status, usage = os.wait4(p.pid, 0)
            break
        time.sleep(0.01)
    p.returncode = 0  # reaped above
    rest = p.stderr.read() or b""
    err += rest[:200_000]
    return {"seconds": time.monotonic() - start, "maxrss": usage.ru_maxrss * 1024, "baseline": 0, "killed": killed,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "stderr": err.decode(errors="replace")}


class PythonServer:
    def __init__(self, env: dict, log: Path):
        self.env, self.log = env, log
        self.start()

    def start(self):
        self.proc = subprocess.Popen([sys.executable, str(HERE / "python_server.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(self.log, "ab"), env=self.env, text=True)
        hello = self.proc.stdout.readline()
        if not hello:
            raise SystemExit(f"the Python server did not start; see {self.log}")

    def run(self, req: dict) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:  # the server itself died (never expected): restart it, count a crash
            self.start()
            return {"seconds": 0, "maxrss": 0, "baseline": 0, "killed": None, "signal": -1, "exit": None,
                    "result": None}
        return json.loads(line)


def classify(iface: str, r: dict, store: Path, outside_changed: bool, allowance: int) -> tuple[str, str]:
    """(outcome, detail) of one run; see the module's docstring."""
    if r["killed"] == "timeout":
        return "hang", ""
    if r["killed"] == "rss_cap":
        return "alloc", f"over {RSS_CAP >> 20} MiB"
    if r["signal"] is not None:
        report = r.get("stderr") or ""
        tail = report[-400:]
        # A sanitizer cannot throw std::bad_alloc: a failed allocation aborts instead.
        if "allocation-size-too-big" in report or "AddressSanitizer: out-of-memory" in report:
            return "alloc", "sanitizer: allocation failed " + report[report.find("ERROR: AddressSanitizer"):][:300]
        return "crash", f"signal {r['signal']} {tail}"
    if r["maxrss"] - r["baseline"] > allowance:
        return "alloc", f"peak RSS {r['maxrss'] >> 20} MiB (baseline {r['baseline'] >> 20} MiB)"
    if outside_changed:
        return "outside", ""
    if iface.startswith("cli"):
        code, msg = r["exit"], r.get("stderr", "")
        if code == 0:
            return "ok", ""
        if any(w in msg for w in OOM_WORDS):
            return "alloc", msg[-300:]
        if code not in DOCUMENTED_EXIT:
            return "internal", f"exit {code}: {msg[-300:]}"
        return ("clear" if store.name in msg else "unnamed"), f"exit {code}: {msg.strip()[-300:]}"
    res = r.get("result")
    if res is None:
        return "crash", f"no result (exit {r['exit']})"
    if "ok" in res:
        return "ok", ""
    text = f"{res['error']}: {res['message'][:300]}"
    if res["error"] == "MemoryError" or any(w in res["message"] for w in OOM_WORDS):
        return "alloc", text
    missing_dims = res["error"] == "KeyError" and "dimension" in res["message"]
    if (not res["zarrgpu"] or res["error"] == "InternalError") and not missing_dims:
        return "internal", f"{res['module']}.{text} at {res['origin']}"
    named = store.name in res["message"] or store.name in str(res.get("store") or "")
    return ("clear" if named else "unnamed"), text


def read_runs(name: str, build, args, env: dict, server: PythonServer, work: Path) -> list[dict]:
    case_dir = work / name.replace("/", "__")
    store, outside, out = case_dir / "store.zarr", case_dir / "outside", case_dir / "out"
    for d in (outside, out):
        d.mkdir(parents=True)
    (outside / "precious.txt").write_text("not zarr; nothing may change me\n")
    target = build(store, out)
    if target is None:
        shutil.rmtree(case_dir, ignore_errors=True)
        return []
    runs = []
    cat = [args.cli, "cat", str(store), "--array", target.array, "--out", str(out / "cat.npy")]
    if not target.read_all and target.ndim:
        cat += ["--select", target.select or ",".join(["0:2"] * target.ndim)]
    invocations = [
        ("cli info", [args.cli, "info", str(store / target.array)]),
        ("cli cat", cat),
        ("cli convert", [args.cli, "convert", str(store), str(out / "dst.zarr"), "--quiet", "--no-fsync",
                         "--memory", "64MiB"]),
        ("python", {"op": "python"}),
        ("xarray", {"op": "xarray"}),
    ]
    for iface, inv in invocations:
        before = snapshot(case_dir, {"store.zarr", "out"})
        if isinstance(inv, list):
            r = run_cli(inv, env, args.timeout, limit_as=not args.preload)
            allowance = ALLOWANCE
        else:
            r = server.run({**inv, "store": str(store), "array": target.array, "select": target.select,
                            "read_all": target.read_all, "timeout": args.timeout, "rss_cap": RSS_CAP})
            allowance = ALLOWANCE
        changed = snapshot(case_dir, {"store.zarr", "out"}) != before
        outcome, detail = classify(iface, r, store, changed, allowance)
        runs.append({"case": name, "interface": iface, "outcome": outcome, "detail": detail,
                     "seconds": round(r["seconds"], 3), "peak_rss_mib": r["maxrss"] >> 20})
        if (out / "dst.zarr").exists():
            shutil.rmtree(out / "dst.zarr", ignore_errors=True)
    shutil.rmtree(case_dir, ignore_errors=True)
    return runs


OUTCOMES = ["clear", "unnamed", "ok", "crash", "hang", "internal", "alloc", "outside", "lost"]


def table(runs: list[dict]) -> str:
    by = collections.defaultdict(collections.Counter)
    for r in runs:
        by[r["interface"]][r["outcome"]] += 1
        by["all"][r["outcome"]] += 1
    lines = ["| interface | runs | " + " | ".join(OUTCOMES) + " |", "|---" * (len(OUTCOMES) + 2) + "|"]
    for iface in sorted(by, key=lambda k: (k == "all", k)):
        c = by[iface]
        lines.append(f"| {iface} | {sum(c.values())} | " + " | ".join(str(c[o]) for o in OUTCOMES) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the zarrgpu command to probe")
    ap.add_argument("--pydir", help="a directory with the zarrgpu package to probe (default: the installed one)")
    ap.add_argument("--preload", help="a library to LD_PRELOAD into the Python runs (a sanitizer's runtime)")
    ap.add_argument("--corpus", default=str(HERE.parent.parent / "tests" / "corpus" / "data"))
    ap.add_argument("--only", help="run only the cases whose name contains this")
    ap.add_argument("--no-corpus", action="store_true", help="skip the corpus mutations")
    ap.add_argument("--no-faults", action="store_true", help="skip the write, kill and concurrency cases")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", help="write every run and the totals here")
    ap.add_argument("--work", help="directory for the cases (default: a temporary one)")
    args = ap.parse_args()
    args.cli = str(Path(args.cli).resolve())

    env = {**os.environ, "ZARRGPU_THREADS": "2", "MALLOC_ARENA_MAX": "2"}
    if args.preload:
        env = sanitized_env(env)
    py_env = dict(env)
    if args.pydir:
        py_env["ZARRGPU_PROBE_PYDIR"] = args.pydir
    if args.preload:
        py_env["LD_PRELOAD"] = args.preload

    work = Path(args.work or tempfile.mkdtemp(prefix="zarrgpu-probe-"))
    work.mkdir(parents=True, exist_ok=True)
    server = PythonServer(py_env, work / "python_server.log")
    all_cases = dict(case_lib.ISSUE_CASES)
    if not args.no_corpus:
        all_cases.update(case_lib.corpus_cases(Path(args.corpus)))
    runs: list[dict] = []
    started = time.time()
    for name, build in all_cases.items():
        if args.only and args.only not in name:
            continue
        got = read_runs(name, build, args, env, server, work)
        runs += got
        bad = [r for r in got if r["outcome"] not in ("clear", "ok")]
        for r in bad:
            print(f"{r['outcome']:8} {r['interface']:11} {name}: {r['detail'][:240]}", flush=True)
    if not args.no_faults:
        for r in faults.run_all(args, env, py_env, work, args.only):
            runs.append(r)
            if r["outcome"] not in ("clear", "ok"):
                print(f"{r['outcome']:8} {r['interface']:11} {r['case']}: {r['detail'][:240]}", flush=True)
    cases = sorted({r["case"] for r in runs})
    totals = collections.Counter(r["outcome"] for r in runs)
    print(table(runs))
    print(f"{len(cases)} cases, {len(runs)} runs in {time.time() - started:.0f} s: " +
          ", ".join(f"{o} {totals[o]}" for o in OUTCOMES))
    if args.json:
        Path(args.json).write_text(json.dumps({
            "command": " ".join(sys.argv), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
            "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus",
            "cases": len(cases), "runs": len(runs), "totals": dict(totals), "table": table(runs), "runs_detail": runs,
        }, indent=1))
    server.proc.stdin.close()
    server.proc.wait()
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if any(totals[o] for o in ("crash", "hang", "internal", "alloc", "outside", "lost")) else 0


if __name__ == "__main__":
    sys.exit(main())
