"""zarrgpu.config / set_config / configured, last_read_report and release_device_memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

zarrgpu = pytest.importorskip("zarrgpu")

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter, whose settings come from `env`."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("ZARRGPU_")}
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=120)


def test_defaults():
    c = zarrgpu.Config(**{**zarrgpu.config().__dict__})
    assert set(c.__dict__) == {"threads", "io", "zstd_decoder", "lz4_decoder", "blosc_decoder", "readahead_bytes", "staging_bytes",
                               "staging_slots", "scratch_bytes", "read_piece_bytes", "keep_device_buffers",
                               "memory_limit"}
    out = _python("import json, dataclasses, zarrgpu; print(json.dumps(dataclasses.asdict(zarrgpu.config())))")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {
        "threads": 0, "io": "auto", "zstd_decoder": "auto", "lz4_decoder": "auto", "blosc_decoder": "auto",
        "readahead_bytes": 256 << 20,
        "staging_bytes": 256 << 20, "staging_slots": 0, "scratch_bytes": 0, "read_piece_bytes": 4 << 20,
        "keep_device_buffers": True, "memory_limit": 0,
    }


def test_the_environment_is_read_once_at_first_use():
    code = """
import dataclasses, json, os, zarrgpu
first = dataclasses.asdict(zarrgpu.config())
os.environ["ZARRGPU_IO"] = "gds"            # too late: read once
os.environ["ZARRGPU_READAHEAD"] = "junk"    # not even parsed
print(json.dumps([first, dataclasses.asdict(zarrgpu.config())]))
"""
    out = _python(code, ZARRGPU_THREADS="3", ZARRGPU_IO="posix", ZARRGPU_GPU_ZSTD="0", ZARRGPU_READAHEAD="1M",
                  ZARRGPU_GPU_LZ4="1", ZARRGPU_GPU_BLOSC="cpu",
                  ZARRGPU_STAGING_BYTES="64M", ZARRGPU_STAGING_SLOTS="2", ZARRGPU_KEEP_DEVICE_BUFFERS="0")
    assert out.returncode == 0, out.stderr
    first, later = json.loads(out.stdout)
    assert first == later
    assert first["threads"] == 3
    assert first["io"] == "posix"
    assert first["zstd_decoder"] == "cpu"
    assert first["lz4_decoder"] == "gpu"
    assert first["blosc_decoder"] == "cpu"
    assert first["readahead_bytes"] == 1 << 20
    assert first["staging_bytes"] == 64 << 20
    assert first["staging_slots"] == 2
    assert first["keep_device_buffers"] is False


def test_a_bad_variable_is_an_error_until_set_config_replaces_it():
    code = f"""
import zarrgpu
try:
    zarrgpu.config()
    print("accepted")
except zarrgpu.InvalidArgumentError as e:
    print("config:", e)
try:
    zarrgpu.open({str(CORPUS / "v2_zstd1_f4_s1.zarr")!r})[0]
    print("read")
except zarrgpu.InvalidArgumentError as e:
    print("read:", e)
zarrgpu.set_config(io="auto")
print("after:", zarrgpu.config().io, zarrgpu.open({str(CORPUS / "v2_zstd1_f4_s1.zarr")!r})[0].shape)
"""
    out = _python(code, ZARRGPU_IO="dma")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("config:") and "ZARRGPU_IO" in lines[0] and "dma" in lines[0], lines
    assert lines[1].startswith("read:") and "ZARRGPU_IO" in lines[1], lines
    assert lines[2] == "after: auto (45, 33)", lines


def test_set_config_returns_the_previous_settings_and_validates():
    before = zarrgpu.config()
    try:
        previous = zarrgpu.set_config(readahead_bytes=0, zstd_decoder="cpu", lz4_decoder="gpu", blosc_decoder="cpu")
        assert previous == before
        now = zarrgpu.config()
        assert now.readahead_bytes == 0 and now.zstd_decoder == "cpu"
        assert now.lz4_decoder == "gpu" and now.blosc_decoder == "cpu"
        assert now.io == before.io
        for bad in ({"io": "dma"}, {"zstd_decoder": "yes"}, {"lz4_decoder": 1}, {"blosc_decoder": "on"},
                    {"threads": -1}, {"staging_bytes": "1G"},
                    {"keep_device_buffers": 1}, {"no_such_setting": 1}, {"staging_slots": 1},
                    {"staging_bytes": 0}):
            with pytest.raises(zarrgpu.InvalidArgumentError):
                zarrgpu.set_config(**bad)
            assert zarrgpu.config() == now, bad  # nothing changed
    finally:
        zarrgpu.set_config(before)
    assert zarrgpu.config() == before


def test_configured_restores_the_settings():
    before = zarrgpu.config()
    with zarrgpu.configured(readahead_bytes=1 << 20, io="posix") as inside:
        assert inside.readahead_bytes == 1 << 20 and inside.io == "posix"
        assert zarrgpu.config() == inside
    assert zarrgpu.config() == before
    with pytest.raises(RuntimeError):
        with zarrgpu.configured(readahead_bytes=0):
            raise RuntimeError("inside")
    assert zarrgpu.config() == before


def _stored_bytes(store: Path, keys) -> int:
    return sum((store / k).stat().st_size for k in keys if (store / k).exists())


def test_read_report_of_a_host_read():
    store = CORPUS / "v2_zstd1_f4_s1.zarr"  # float32 (64, 45, 33), chunks 16^3, zstd
    a = zarrgpu.open(str(store))
    got = a[0:10, :, 5:20]
    r = zarrgpu.last_read_report()
    assert r.device == "cpu"
    assert r.io_path == "store"
    assert r.store == "file"
    assert r.requests == r.retries == r.bytes_fetched == 0  # a local store asks no server
    keys = [f"0.{j}.{k}" for j in range(3) for k in range(2)]  # dims 1 and 2: chunks 0-2 and 0-1
    assert r.chunks == len(keys)
    assert r.missing_chunks == len([k for k in keys if not (store / k).exists()])
    assert r.bytes_read == _stored_bytes(store, keys)
    assert r.bytes_decoded == (r.chunks - r.missing_chunks) * 16**3 * 4
    assert r.bytes_out == got.nbytes == 10 * 45 * 15 * 4
    assert [c.codec for c in r.codecs] == ["bytes", "zstd"]
    assert all(c.cpu_chunks == r.chunks - r.missing_chunks and c.gpu_chunks == 0 for c in r.codecs)
    assert r.seconds > 0 and r.seconds_read_threads > 0 and r.seconds_decode_threads > 0


def test_read_report_of_a_sharded_read_counts_inner_chunks():
    store = CORPUS / "v3_shard_end_s11.zarr"  # (96, 64, 50) in shards of (32, 32, 50), inner (8, 16, 25)
    a = zarrgpu.open(str(store))
    a[0:8, 0:16, :]  # one shard, two inner chunks
    r = zarrgpu.last_read_report()
    assert [c.codec for c in r.codecs] == ["sharding_indexed", "bytes", "zstd"]
    assert r.chunks == 2
    assert r.bytes_out == 8 * 16 * 50 * 4
    index_bytes = 16 * 2 * 8 + 4  # 4 x 2 x 2 inner chunks x (offset, nbytes), then crc32c
    assert r.bytes_read > index_bytes
    assert r.bytes_read <= index_bytes + (store / "c/0/0/0").stat().st_size


def test_reports_are_kept_per_thread():
    import threading

    a = zarrgpu.open(str(CORPUS / "v2_zstd1_f4_s1.zarr"))
    a[0:16, 0:15, 0:16]
    seen = []
    t = threading.Thread(target=lambda: seen.append(zarrgpu.last_read_report()))
    t.start()
    t.join()
    assert seen[0].chunks == 0 and seen[0].io_path == ""
    assert zarrgpu.last_read_report().chunks == 1


def test_release_device_memory_is_harmless_without_device_reads():
    zarrgpu.release_device_memory()
    a = zarrgpu.open(str(CORPUS / "v2_zstd1_f4_s1.zarr"))
    np.testing.assert_array_equal(a[1:3, 2, 3:5], a[...][1:3, 2, 3:5])
