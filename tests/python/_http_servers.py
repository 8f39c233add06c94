"""Real HTTP servers for the remote-store tests: nginx (Debian's, installed by
scripts/setup.sh) serving a directory on a free loopback port, and a
fault-injecting proxy in front of it that drops connections, delays, answers
500/503 and truncates bodies."""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")


def find_nginx() -> str | None:
    for c in NGINX_CANDIDATES:
        path = shutil.which(c)
        if path:
            return path
    return None


def require_nginx() -> str:
    """nginx's path; skips (or, with ZARRGPU_REQUIRE_SERVERS=1 as in CI, fails) without it."""
    path = find_nginx()
    if path is None:
        if os.environ.get("ZARRGPU_REQUIRE_SERVERS") == "1":
            pytest.fail("nginx is required (ZARRGPU_REQUIRE_SERVERS=1): scripts/setup.sh installs nginx-light")
        pytest.skip("nginx is not installed (scripts/setup.sh installs nginx-light)")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen | None, log: Path | None, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}: {log.read_text() if log and log.exists() else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def stop_process(proc: subprocess.Popen | None) -> None:
    """Ends a server this module started: SIGTERM, then SIGKILL after 10 s."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def assert_same_array(got, want) -> None:
    """A remote read equals the local one: dtype, shape and every byte (NaNs included)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "OUT":
        assert got.tolist() == want.tolist()
    else:
        assert got.tobytes() == want.tobytes()


class Nginx:
    """nginx in the foreground, one process, serving `root` (range requests are nginx's own)."""

    def __init__(self, root: Path, workdir: Path):
        self.root = root
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def _config(self) -> str:
        w = self.workdir
        # `user` only means something when nginx starts as root; keep the test user then.
        user = f"user {getpass.getuser()};\n" if os.geteuid() == 0 else ""
        temps = "".join(f"  {kind}_temp_path {w / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        return (
            f"{user}daemon off;\nmaster_process off;\nworker_processes 1;\npid {w / 'nginx.pid'};\n"
            f"error_log {w / 'error.log'} warn;\nevents {{ worker_connections 512; }}\n"
            "http {\n"
            f"  access_log {w / 'access.log'};\n{temps}"
            "  default_type application/octet-stream;\n  keepalive_requests 100000;\n"
            f"  server {{\n    listen 127.0.0.1:{self.port};\n    root {self.root};\n"
            "    location / { }\n  }\n}\n"
        )

    def start(self, nginx: str) -> None:
        for _ in range(5):  # the port may be taken between free_port() and listen
            self.port = free_port()
            conf = self.workdir / "nginx.conf"
            conf.write_text(self._config())
            log = self.workdir / "stderr.log"
            with open(log, "wb") as err:
                self.proc = subprocess.Popen(
                    [nginx, "-p", str(self.workdir), "-e", str(self.workdir / "error.log"), "-c", str(conf)],
                    stdout=subprocess.DEVNULL, stderr=err)
            try:
                wait_for_port(self.port, self.proc, log)
                return
            except RuntimeError:
                self.stop()
        raise RuntimeError(f"nginx did not start: {(self.workdir / 'error.log').read_text()}")

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


FAULTS = ("drop", "500", "truncate", "503", "delay")


class FaultProxy:
    """A threaded HTTP/1.1 proxy in front of `upstream_port`. One request per
    connection (it answers "Connection: close"). `plan(request_line, attempt)`
    returns the fault for the attempt-th sight of that request (method, path and
    Range), one of FAULTS or None to pass it through."""

    def __init__(self, upstream_port: int, plan, delay: float = 2.0):
        self.upstream_port = upstream_port
        self.plan = plan
        self.delay = delay
        self.seen: dict[str, int] = {}
        self.faults: dict[str, int] = {f: 0 for f in FAULTS}
        self.requests = 0
        self._lock = threading.Lock()
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(128)
        self.port = self._server.getsockname()[1]
        self._stopping = False
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._stopping = True
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            pass
        self._server.close()
        self._thread.join(5)

    def _accept(self) -> None:
        while not self._stopping:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            if self._stopping:
                conn.close()
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    @staticmethod
    def _read_head(sock: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        return data

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                head = self._read_head(conn)
                if not head:
                    return
                lines = head.split(b"\r\n")
                range_line = next((l for l in lines if l.lower().startswith(b"range:")), b"")
                ident = (lines[0] + b" " + range_line).decode("latin-1")
                with self._lock:
                    attempt = self.seen.get(ident, 0)
                    self.seen[ident] = attempt + 1
                    self.requests += 1
                fault = self.plan(ident, attempt)
                if fault is not None:
                    with self._lock:
                        self.faults[fault] += 1
                if fault == "drop":
                    conn.shutdown(socket.SHUT_RDWR)
                    return
                if fault in ("500", "503"):
                    body = b"injected failure"
                    conn.sendall(f"HTTP/1.1 {fault} Injected\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                                 .encode() + body)
                    return
                if fault == "delay":
                    time.sleep(self.delay)
                # Forward with "Connection: close" so that the upstream ends the answer.
                kept = [l for l in lines[1:] if l and not l.lower().startswith((b"connection:", b"keep-alive:"))]
                request = b"\r\n".join([lines[0], *kept, b"Connection: close", b"", b""])
                with socket.create_connection(("127.0.0.1", self.upstream_port), timeout=10) as up:
                    up.sendall(request)
                    answer = b""
                    while True:
                        chunk = up.recv(1 << 20)
                        if not chunk:
                            break
                        answer += chunk
                if fault == "truncate":
                    split = answer.find(b"\r\n\r\n") + 4
                    body_len = len(answer) - split
                    # The headers still promise the whole body: half of it arrives.
                    conn.sendall(answer[: split + body_len // 2])
                    conn.shutdown(socket.SHUT_RDWR)
                    return
                conn.sendall(answer)
            except OSError:
                pass


def copy_corpus(corpus: Path, dest: Path) -> Path:
    """A copy of the corpus's stores (the server must not serve the repository itself)."""
    shutil.copytree(corpus, dest, ignore=shutil.ignore_patterns("*.md"))
    return dest
