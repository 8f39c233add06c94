"""Starting `zarrgpu serve` for the cache service tests, and a raw client for
requests the Python client never sends (malformed, oversized)."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import time
from pathlib import Path

import pytest


class Service:
    def __init__(self, zarrgpu_bin: Path, directory: Path, budget: str = "64MiB", *extra: str):
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.socket_path = str(directory / "run" / "cache.sock")
        self.args = [str(zarrgpu_bin), "serve", "--socket", self.socket_path, "--budget", budget, "--device", "cpu", *extra]
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Service":
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()  # printed once the socket listens
        if "listening" not in line:
            self.proc.kill()
            raise RuntimeError(f"zarrgpu serve did not start: {line} {self.proc.stderr.read()}")
        return self

    def kill(self, sig: int = 9) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(30)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def raw_request(path: str, payload: bytes, length: int | None = None, timeout: float = 30) -> tuple[bytes | None, socket.socket]:
    """Sends one frame (length may lie) and returns the answer's payload (None: closed)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    s.sendall(struct.pack("<I", len(payload) if length is None else length) + payload)
    return read_frame(s), s


def read_frame(s: socket.socket) -> bytes | None:
    header = b""
    while len(header) < 4:
        chunk = s.recv(4 - len(header))
        if not chunk:
            return None
        header += chunk
    (n,) = struct.unpack("<I", header)
    body = b""
    while len(body) < n:
        chunk = s.recv(n - len(body))
        if not chunk:
            return None
        body += chunk
    return body


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def wait_for(predicate, timeout: float = 30.0, what: str = "condition") -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")
