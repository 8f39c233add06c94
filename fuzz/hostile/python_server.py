"""Runs Python and xarray reads for the probe, one forked child per run.

Imports numpy, xarray and zarrgpu once, then reads requests (JSON lines) on
stdin: {"op": "python"|"xarray", "store", "array", "select", "read_all",
"timeout", "rss_cap"}. Each runs in a forked child (so a crash, a hang or a
runaway allocation ends only that run), watched for its timeout and its
resident memory; the reply (one JSON line) gives the child's outcome, its
peak RSS from wait4 and the RSS of this process at the fork (the baseline).

ZARRGPU_PROBE_PYDIR, when set, is a directory holding a `zarrgpu` package
(another build's extension, e.g. under AddressSanitizer) to import instead
of the installed one.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
import traceback

if os.environ.get("ZARRGPU_PROBE_PYDIR"):
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()
                        and "editable" not in getattr(f, "__name__", "").lower()]
    sys.path.insert(0, os.environ["ZARRGPU_PROBE_PYDIR"])

import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

import zarrgpu  # noqa: E402
from zarrgpu.xarray_backend import ZarrgpuBackendEntrypoint  # noqa: E402


def rss_bytes(pid: int | str = "self") -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError):
        return 0


def selection(text: str | None, ndim: int):
    if text is None:
        return tuple(slice(0, 2) for _ in range(ndim))
    parts = []
    for p in text.split(","):
        if ":" in p:
            a, b = p.split(":")
            parts.append(slice(int(a) if a else None, int(b) if b else None))
        else:
            parts.append(int(p))
    return tuple(parts)


def describe(e: BaseException) -> dict:
    tb = traceback.extract_tb(e.__traceback__)
    origin = tb[-1].filename if tb else ""
    out = {"error": type(e).__name__, "module": type(e).__module__, "message": str(e)[:2000],
           "origin": origin, "zarrgpu": isinstance(e, zarrgpu.ZarrgpuError)}
    for k in ("store", "array", "chunk_key", "codec"):
        out[k] = getattr(e, k, None)
    return out


def run(req: dict) -> dict:
    store, array = req["store"], req["array"]
    if req["op"] == "python":
        a = zarrgpu.open(os.path.join(store, array))
        sel = Ellipsis if req["read_all"] else selection(req["select"], a.ndim)
        got = np.asarray(a[sel])
        return {"ok": [list(got.shape), str(got.dtype)]}
    ds = xr.open_dataset(store, engine=ZarrgpuBackendEntrypoint)
    if not req["read_all"]:
        ds = ds.isel({d: slice(0, 2) for d in ds.dims})
    ds.load()
    return {"ok": sorted(ds.variables)}


def child(req: dict, fd: int) -> None:
    try:
        out = run(req)
    except BaseException as e:  # noqa: BLE001 (every outcome is reported)
        out = describe(e)
    os.write(fd, json.dumps(out, default=str).encode()[:60000])
    os._exit(0)


def serve() -> None:
    print(json.dumps({"ready": True, "rss": rss_bytes()}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        result = tempfile.TemporaryFile()
        baseline = rss_bytes()
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            child(req, result.fileno())
        start, killed = time.monotonic(), None
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - start > req["timeout"]:
                killed = "timeout"
            elif rss_bytes(pid) > req["rss_cap"]:
                killed = "rss_cap"
            if killed:
                os.kill(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                break
            time.sleep(0.01)
        result.seek(0)
        raw = result.read()
        reply = {"seconds": time.monotonic() - start, "maxrss": usage.ru_maxrss * 1024, "baseline": baseline,
                 "killed": killed, "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                 "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None}
        try:
            reply["result"] = json.loads(raw) if raw else None
        except ValueError:
            reply["result"] = None
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    serve()
