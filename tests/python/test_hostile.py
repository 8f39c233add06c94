"""Hostile input and faults (issue 33): metadata, sizes, special files, symlinks, killed writes.

Every case runs in a subprocess with a bounded address space (RLIMIT_AS; for a
command built with AddressSanitizer, its allocation and resident-set bounds), so an
allocation the metadata does not allow fails the test instead of the machine,
and with a timeout, so a hang fails it too. Each asserts a clear error of the
documented kind: CLI exit codes (tools/zarrgpu/README.md: 2 invalid argument,
3 not found, 4 invalid metadata, 5 unsupported, 6 corrupt data, 7 I/O, 10 resource
exhausted) and the
zarrgpu exception classes, with the store, array and chunk or codec named, and
never a signal (a crash).
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import resource
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

import zarrgpu

# Address space for each subprocess: a few allocations beyond the metadata
# (the 4.1 GB, 6.3 GB and 32 GiB) exceed it; honest work stays far below.
MEMORY_LIMIT = 3 << 30
TIMEOUT = 60
CHILD_ENV = {**os.environ, "ZARRGPU_THREADS": "4", "MALLOC_ARENA_MAX": "2"}


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@functools.cache
def _sanitized(program: str) -> bool:
    """Whether `program` is built with AddressSanitizer (the CI's build-asan command, as
    ZARRGPU_BIN): it maps terabytes of shadow memory, so no RLIMIT_AS can bound it."""
    try:
        with open(program, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


# The bound of a sanitized command instead of RLIMIT_AS: a larger allocation
# fails (std::bad_alloc) and a larger resident set is a sanitizer report.
ASAN_BOUND = (f"allocator_may_return_null=1:max_allocation_size_mb={MEMORY_LIMIT >> 20}:"
              f"hard_rss_limit_mb={MEMORY_LIMIT >> 20}:detect_leaks=0:abort_on_error=1")


# Outcomes of every bounded run, by exit code ("signal N", "timeout"); written
# to $ZARRGPU_HOSTILE_FIGURES (JSON) at the end of the module, for the figures
# issue 33 asks for.
OUTCOMES: dict[str, int] = {}


@pytest.fixture(scope="module", autouse=True)
def _figures():
    yield
    if os.environ.get("ZARRGPU_HOSTILE_FIGURES"):
        Path(os.environ["ZARRGPU_HOSTILE_FIGURES"]).write_text(json.dumps(OUTCOMES, sort_keys=True))


def run_bounded(argv, timeout=TIMEOUT, env=None, **kw) -> subprocess.CompletedProcess:
    env = env or CHILD_ENV
    sanitized = _sanitized(str(argv[0]))
    if sanitized:
        env = {**env, "ASAN_OPTIONS": ASAN_BOUND, "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
    try:
        r = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout,
                           preexec_fn=None if sanitized else _limit_memory, env=env, **kw)
    except subprocess.TimeoutExpired:
        OUTCOMES["timeout"] = OUTCOMES.get("timeout", 0) + 1
        raise
    key = f"signal {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}"
    OUTCOMES[key] = OUTCOMES.get(key, 0) + 1
    assert r.returncode >= 0, f"killed by signal {-r.returncode}: {r.stderr[-2000:]}"
    return r


def run_python(code: str, timeout=TIMEOUT) -> dict:
    """Runs `code` (which sets `result`) under the limits; returns {"ok": result} or the error's fields."""
    wrapper = textwrap.dedent("""
        import json, sys
        import numpy as np
        import zarrgpu
        out = {}
        try:
            result = None
        {body}
            out["ok"] = result
        except zarrgpu.ZarrgpuError as e:
            out = {"error": type(e).__name__, "message": str(e), "codec": e.codec, "chunk_key": e.chunk_key,
                   "array": e.array, "store": e.store}
        except BaseException as e:
            out = {"error": "foreign:" + type(e).__name__, "message": str(e)}
        print(json.dumps(out))
    """).replace("{body}", textwrap.indent(textwrap.dedent(code), "    "))
    r = run_bounded([sys.executable, "-c", wrapper], timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    key = "python " + got.get("error", "ok")
    OUTCOMES[key] = OUTCOMES.get(key, 0) + 1
    return got


def write_json(path: Path, doc) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def v3_array(root: Path, shape, chunks, dtype="uint8", codecs=None, fill=0) -> Path:
    write_json(root / "zarr.json", {
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill, "codecs": codecs or [{"name": "bytes", "configuration": {"endian": "little"}}],
    })
    return root


def sharded(inner, codecs=None, index_codecs=None):
    cfg = {"chunk_shape": inner, "codecs": codecs or [{"name": "bytes", "configuration": {"endian": "little"}}],
           "index_codecs": index_codecs or [{"name": "bytes", "configuration": {"endian": "little"}},
                                             {"name": "crc32c"}],
           "index_location": "end"}
    return [{"name": "sharding_indexed", "configuration": cfg}]


def zstd_rle_frame(blocks: int) -> bytes:
    """A zstd frame of RLE blocks (RFC 8878 §3.1.1.2): 4 bytes per 128 KiB of zeros, no content size."""
    block = 128 << 10
    header = (0xFD2FB528).to_bytes(4, "little") + bytes([0x00, 0x38])  # no FCS; window 128 KiB
    body = bytearray()
    for i in range(blocks):
        last = 1 if i == blocks - 1 else 0
        body += (last | (1 << 1) | (block << 3)).to_bytes(3, "little") + b"\0"
    return header + bytes(body)


def zstd_rle_bomb(decoded_gib: int) -> bytes:
    return zstd_rle_frame((decoded_gib << 30) // (128 << 10))


def zstd_frame_of_zeros() -> bytes:
    """128 KiB of zeros in one frame without a content size: what it decodes to is
    unknown until it is decoded."""
    return zstd_rle_frame(1)


def gzip_bomb(decoded_gib: int) -> bytes:
    """Concatenated gzip members (RFC 1952 §2.2) of 64 MiB of zeros each."""
    member = gzip.compress(bytes(64 << 20), compresslevel=9, mtime=0)
    return member * (decoded_gib * 16)


# ---- metadata and sizes: every case through `info`, `cat` and Python -------------------------

def case_huge_shape_float32(tmp):
    return v3_array(tmp / "a", [2**62], [2**62], "float32"), 4, "InvalidMetadataError"


def case_shape_2_64_minus_1(tmp):
    return v3_array(tmp / "a", [2**64 - 1], [1]), 4, "InvalidMetadataError"


def case_chunk_product_overflows(tmp):
    return v3_array(tmp / "a", [2**32, 2**32], [2**32, 2**32]), 4, "InvalidMetadataError"


def case_selection_bytes_wrap(tmp):
    # [2**31, 2**31] float32 is 2**64 bytes: the whole-array selection would wrap to 0.
    return v3_array(tmp / "a", [2**31, 2**31], [1024, 1024], "float32"), 4, "InvalidMetadataError"


def case_two_dims_wrap_int64(tmp):
    return v3_array(tmp / "a", [2**40, 2**40], [1, 1], "float64"), 4, "InvalidMetadataError"


def case_shard_index_32gib(tmp):
    # 2**31 inner chunks: a 32 GiB index; the shard file (100 bytes) bounds what is read.
    a = v3_array(tmp / "a", [2**31], [2**31], codecs=sharded([1]))
    (a / "c").mkdir()
    (a / "c" / "0").write_bytes(bytes(100))
    return a, 6, "CorruptDataError"


def case_shard_shorter_than_index(tmp):
    a = v3_array(tmp / "a", [64], [16], codecs=sharded([4]))
    (a / "c").mkdir()
    (a / "c" / "0").write_bytes(b"\x01\x02\x03")
    return a, 6, "CorruptDataError"


def case_zstd_zstd_bomb(tmp):
    z = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 3}},
         {"name": "zstd", "configuration": {"level": 3}}]
    a = v3_array(tmp / "a", [1024], [1024], codecs=z)
    (a / "c").mkdir()
    (a / "c" / "0").write_bytes(zstd_rle_bomb(16))
    return a, 6, "CorruptDataError"


def case_zstd_gzip_bomb(tmp):
    z = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 3}},
         {"name": "gzip", "configuration": {"level": 5}}]
    a = v3_array(tmp / "a", [1024], [1024], codecs=z)
    (a / "c").mkdir()
    (a / "c" / "0").write_bytes(gzip_bomb(4))
    return a, 6, "CorruptDataError"


def case_fifo_metadata(tmp):
    a = tmp / "a"
    a.mkdir()
    os.mkfifo(a / "zarr.json")
    return a, 7, "StorageError"


def case_fifo_chunk(tmp):
    a = v3_array(tmp / "a", [8], [8])
    (a / "c").mkdir()
    os.mkfifo(a / "c" / "0")
    return a, 7, "StorageError"


def case_socket_chunk(tmp):
    a = v3_array(tmp / "a", [8], [8])
    (a / "c").mkdir()
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(a / "c" / "0"))
    s.close()
    return a, 7, "StorageError"


def case_device_chunk(tmp):
    a = v3_array(tmp / "a", [8], [8])
    (a / "c").mkdir()
    os.symlink("/dev/zero", a / "c" / "0")
    return a, 7, "StorageError"


def case_v2_fifo_zarray(tmp):
    a = tmp / "a"
    a.mkdir()
    os.mkfifo(a / ".zarray")
    return a, 7, "StorageError"


def link_to_sparse_8_gib_file(link: Path, target: Path) -> None:
    with open(target, "wb") as f:
        f.truncate(8 << 30)  # sparse: no disk used
    os.symlink(target, link)


def case_zarr_json_links_to_8_gib_file(tmp):
    # A document's size is checked before it is read (max 64 MiB): a sparse
    # 8 GiB file behind a link is refused, not loaded.
    a = v3_array(tmp / "a", [8], [8])
    (a / "zarr.json").unlink()
    link_to_sparse_8_gib_file(a / "zarr.json", tmp / "sparse")
    return a, 4, "InvalidMetadataError"


def case_chunk_links_to_8_gib_file(tmp):
    # A stored chunk far larger than its codecs can make of the chunk is
    # refused before it is read.
    a = v3_array(tmp / "a", [8], [8])
    (a / "c").mkdir()
    link_to_sparse_8_gib_file(a / "c" / "0", tmp / "sparse")
    return a, 6, "CorruptDataError"


def zstd_array_with_chunk_0(tmp, shape, chunks) -> Path:
    z = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 3}}]
    a = v3_array(tmp / "a", shape, chunks, codecs=z)
    (a / "c").mkdir()
    (a / "c" / "0").write_bytes(zstd_frame_of_zeros())
    return a


def case_chunk_declared_1_tib(tmp):
    # Decoding a chunk needs its whole buffer: 1 TiB by the metadata is beyond
    # the subprocess's address space (RLIMIT_AS), so beyond its memory limit,
    # and is refused before it is allocated (was "out of memory", exit 9; an
    # abort under ASan).
    return zstd_array_with_chunk_0(tmp, [2**41], [2**40]), 10, "ResourceExhaustedError"


def case_chunk_declared_1_pib(tmp):
    # Beyond any machine's memory, whatever the process's limits.
    return zstd_array_with_chunk_0(tmp, [2**51], [2**50]), 10, "ResourceExhaustedError"


ERROR_CASES = [case_huge_shape_float32, case_shape_2_64_minus_1, case_chunk_product_overflows,
               case_selection_bytes_wrap, case_two_dims_wrap_int64, case_shard_index_32gib,
               case_shard_shorter_than_index, case_zstd_zstd_bomb, case_zstd_gzip_bomb, case_fifo_metadata,
               case_fifo_chunk, case_socket_chunk, case_device_chunk, case_v2_fifo_zarray,
               case_zarr_json_links_to_8_gib_file, case_chunk_links_to_8_gib_file, case_chunk_declared_1_tib,
               case_chunk_declared_1_pib]

# Errors found at open time show in `info`; chunk errors only when data is read.
OPEN_TIME = {"InvalidMetadataError"}
META_FIFO = {case_fifo_metadata, case_v2_fifo_zarray}


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c.__name__[5:])
def test_hostile_case_cli(case, tmp_path, zarrgpu_bin):
    store, code, exc = case(tmp_path)
    at_open = exc in OPEN_TIME or case in META_FIFO
    info = run_bounded([zarrgpu_bin, "info", store])
    if at_open:
        assert info.returncode == code, info.stderr
        assert str(store) in info.stderr or store.name in info.stderr
    else:
        assert info.returncode == 0, info.stderr
    out = tmp_path / "out.npy"
    cat = run_bounded([zarrgpu_bin, "cat", store, "--select", "0:1", "--out", out])
    assert cat.returncode == code, cat.stderr
    assert "internal" not in cat.stderr.lower()
    if code in (6, 10):
        assert "c/0" in cat.stderr, cat.stderr
    assert not out.exists()


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c.__name__[5:])
def test_hostile_case_python(case, tmp_path):
    store, code, exc = case(tmp_path)
    got = run_python(f"""
        a = zarrgpu.open({str(store)!r})
        result = a[(slice(0, 1),) * a.ndim].tolist()
    """)
    assert got.get("error") == exc, got
    assert got["store"].endswith(str(store)) or str(store) in got["message"], got
    if exc == "CorruptDataError":
        assert got["chunk_key"] == "c/0" and got["codec"], got
    if exc == "ResourceExhaustedError":
        assert got["chunk_key"] == "c/0" and "memory limit" in got["message"], got


def v2_float64_array_of_1_tib_chunks(root: Path) -> Path:
    """The case mutation fuzzing found: a .zarray mutated to chunks [32, 2**32 - 1] of
    float64 (1 TiB each), its chunk 0.0 a small zstd frame."""
    write_json(root / ".zarray", {"zarr_format": 2, "shape": [64, 2**32 - 1], "chunks": [32, 2**32 - 1],
                                  "dtype": "<f8", "compressor": {"id": "zstd", "level": 1}, "fill_value": 0,
                                  "order": "C", "filters": None})
    (root / "0.0").write_bytes(zstd_frame_of_zeros())
    return root


@pytest.mark.parametrize("limit", ["rlimit", "setting"])
def test_chunk_larger_than_memory_is_resource_exhausted_in_every_interface(tmp_path, zarrgpu_bin, limit):
    # The limit is the process's address space (RLIMIT_AS of run_bounded), or
    # ZARRGPU_MEMORY_LIMIT; either way the 1 TiB buffer is never asked for.
    store = v2_float64_array_of_1_tib_chunks(tmp_path / "a.zarr")
    env = {**CHILD_ENV, "ZARRGPU_MEMORY_LIMIT": "256M"} if limit == "setting" else CHILD_ENV
    out = tmp_path / "out.npy"
    cat = run_bounded([zarrgpu_bin, "cat", store, "--select", "0:1,0:4", "--out", out], env=env)
    assert cat.returncode == 10, cat.stderr
    assert f"resource exhausted (store 'file://{store}', array '/', chunk '0.0')" in cat.stderr, cat.stderr
    assert "1099511627520 bytes, more than the memory limit" in cat.stderr, cat.stderr
    if limit == "setting":
        assert "memory limit of 268435456 bytes (set by memory_limit (ZARRGPU_MEMORY_LIMIT))" in cat.stderr
    assert not out.exists()
    dst = tmp_path / "dst.zarr"
    convert = run_bounded([zarrgpu_bin, "convert", store, dst, "--quiet", "--no-fsync"], env=env)
    assert convert.returncode == 10, convert.stderr
    assert "resource exhausted" in convert.stderr and str(store) in convert.stderr, convert.stderr
    assert not dst.exists()
    assert "10  resource exhausted" in run_bounded([zarrgpu_bin, "--help"]).stdout
    # Missing chunks read as their fill value, with nothing decoded.
    fill = run_bounded([zarrgpu_bin, "cat", store, "--select", "40,0:4", "--out", out], env=env)
    assert fill.returncode == 0, fill.stderr
    assert np.load(out).tolist() == [0.0] * 4
    setting = "zarrgpu.set_config(memory_limit=256 << 20)" if limit == "setting" else ""
    got = run_python(f"""
        {setting}
        a = zarrgpu.open({str(store)!r})
        try:
            a[0:1, 0:4]
        except MemoryError as e:
            assert isinstance(e, zarrgpu.ResourceExhaustedError), type(e)
            raise
    """)
    assert got["error"] == "ResourceExhaustedError", got
    assert got["chunk_key"] == "0.0" and got["array"] == "" and got["store"] == f"file://{store}", got


def test_chunk_within_the_address_space_limit_but_beyond_what_is_left_of_it_is_refused(tmp_path, zarrgpu_bin):
    # Mutation fuzzing found it: chunks [2**31 - 1] of <u4 (8 GiB less 4 bytes)
    # under an 8 GiB RLIMIT_AS passed the check and failed to allocate ("out of
    # memory reading the chunk"), as the process had mapped the difference
    # already. Here: a chunk 8 bytes short of run_bounded's RLIMIT_AS.
    chunk = MEMORY_LIMIT // 8 - 1
    store = tmp_path / "a.zarr"
    write_json(store / ".zarray", {"zarr_format": 2, "shape": [300], "chunks": [chunk], "dtype": "<f8",
                                   "compressor": {"id": "zstd", "level": 1}, "fill_value": 0, "order": "C",
                                   "filters": None})
    (store / "0").write_bytes(zstd_frame_of_zeros())
    out = tmp_path / "out.npy"
    if not _sanitized(str(zarrgpu_bin)):  # a sanitized command runs without the RLIMIT_AS
        cat = run_bounded([zarrgpu_bin, "cat", store, "--select", "0:2", "--out", out])
        assert cat.returncode == 10, cat.stderr
        assert f"resource exhausted (store 'file://{store}', array '/', chunk '0')" in cat.stderr, cat.stderr
        assert f"decoding the chunk needs {chunk * 8} bytes, more than the " in cat.stderr, cat.stderr
        assert "bytes left of the memory limit of 3221225472 bytes (RLIMIT_AS" in cat.stderr, cat.stderr
        assert not out.exists()
    got = run_python(f"""
        a = zarrgpu.open({str(store)!r})
        a[0:2]
    """)
    assert got["error"] == "ResourceExhaustedError", got
    assert got["chunk_key"] == "0" and got["store"] == f"file://{store}", got
    assert "bytes left of the memory limit" in got["message"], got


def test_python_selection_beyond_the_memory_limit_is_refused_before_numpy_allocates(tmp_path):
    store = v3_array(tmp_path / "a", [4 << 20], [1 << 20], fill=3)
    got = run_python(f"""
        a = zarrgpu.open({str(store)!r})
        with zarrgpu.configured(memory_limit=1 << 20):
            assert a[0:1 << 20].sum() == 3 << 20
            a[0:(1 << 20) + 1]
    """)
    assert got.get("error") == "ResourceExhaustedError", got
    assert "the selection [0:1048577:1] of uint8 needs 1048577 bytes, more than the memory limit of 1048576" in \
        got["message"], got
    assert got["store"].endswith(str(store)), got


def test_huge_uint8_array_reads_fill_without_allocating(tmp_path, zarrgpu_bin):
    # 2**61 bytes is within the limits: a missing chunk reads as fill, nothing huge is made.
    store = v3_array(tmp_path / "a", [2**61], [2**20], fill=7)
    assert run_bounded([zarrgpu_bin, "info", store]).returncode == 0
    out = tmp_path / "o.npy"
    r = run_bounded([zarrgpu_bin, "cat", store, "--select", f"{2**40}:{2**40 + 3}",
                     "--out", out])
    assert r.returncode == 0, r.stderr
    assert np.load(out).tolist() == [7, 7, 7]
    got = run_python(f"result = zarrgpu.open({str(store)!r})[-2:].tolist()")
    assert got == {"ok": [7, 7]}


def test_huge_shard_grid_opens_quickly(tmp_path, zarrgpu_bin):
    # Shards [128, 2**32] of inner chunks [64, 64]: 2**27 index entries (2 GiB) that
    # opening must not build.
    store = v3_array(tmp_path / "a", [128, 2**32], [128, 2**32], codecs=sharded([64, 64]))
    t = time.monotonic()
    got = run_python(f"result = zarrgpu.open({str(store)!r})[0:2, 0:2].tolist()")
    assert got == {"ok": [[0, 0], [0, 0]]}
    assert run_bounded([zarrgpu_bin, "info", store]).returncode == 0
    assert time.monotonic() - t < 20


def test_python_create_with_huge_shape_is_a_clear_error(tmp_path):
    for shape, chunks in [([2**64 - 1], [1]), ([2**62], [2**62]), ([2**32, 2**32], [2**32, 2**32])]:
        got = run_python(f"""
            zarrgpu.create_array({str(tmp_path / 'c')!r}, shape={shape}, chunks={chunks}, dtype="float32",
                                 overwrite=True)
        """)
        assert got.get("error") in ("InvalidMetadataError", "InvalidArgumentError"), got
    got = run_python(f"zarrgpu.create_array({str(tmp_path / 'd')!r}, shape=[2**64], chunks=[1], dtype='u1')")
    assert got.get("error") in ("InvalidMetadataError", "InvalidArgumentError"), got


# ---- writes never leave the store through symbolic links ------------------------------------

def test_write_through_symlinked_chunk_directory_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    store = tmp_path / "s.zarr"
    zarrgpu.create_array(store, shape=[8], chunks=[4], dtype="uint8")
    os.symlink(outside, store / "c")
    got = run_python(f"""
        a = zarrgpu.open({str(store)!r}, mode="r+")
        a[:] = np.arange(8, dtype="u1")
    """)
    assert got.get("error") == "StorageError", got
    assert "symbolic link" in got["message"]
    assert list(outside.iterdir()) == []


def test_overwrite_through_symlinked_array_directory_deletes_nothing_outside(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("not zarr")
    (outside / "zarr.json").write_text("{}")
    store = tmp_path / "s.zarr"
    zarrgpu.create_group(store)
    os.symlink(outside, store / "arr")
    got = run_python(f"""
        zarrgpu.create_array({str(store)!r}, path="arr", shape=[4], chunks=[4], dtype="u1", overwrite=True)
    """)
    assert got.get("error") == "StorageError", got
    assert (outside / "precious.txt").read_text() == "not zarr"
    assert (outside / "zarr.json").read_text() == "{}"


# ---- leftovers of killed writes ---------------------------------------------------------------

def dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_stale_temporaries_are_removed_by_the_next_write(tmp_path):
    store = tmp_path / "s.zarr"
    a = zarrgpu.create_array(store, shape=[8], chunks=[4], dtype="uint8")
    (store / "c").mkdir()
    stale = store / "c" / f".0.zarrgpu-tmp.{dead_pid()}.3"
    stale.write_bytes(b"half")
    live = store / "c" / f".1.zarrgpu-tmp.{os.getpid()}.999999"
    live.write_bytes(b"being written")
    a = zarrgpu.open(store, mode="r+")
    a[:] = np.arange(8, dtype="u1")
    assert not stale.exists()
    assert live.exists()  # its writer (this process) is alive


def small_source(tmp_path, n=64) -> Path:
    src = tmp_path / "src.zarr"
    a = zarrgpu.create_array(src, shape=[n], chunks=[16], dtype="int32")
    a[:] = np.arange(n, dtype="i4")
    return src


def test_convert_removes_partial_leftovers_and_names_them(tmp_path, zarrgpu_bin):
    src = small_source(tmp_path)
    dst = tmp_path / "dst.zarr"
    leftover = tmp_path / "dst.zarr.partial-abc123"
    (leftover / "c").mkdir(parents=True)
    (leftover / "c" / "0").write_bytes(bytes(1000))
    r = run_bounded([zarrgpu_bin, "convert", src, dst, "--quiet"])
    assert r.returncode == 0, r.stderr
    assert not leftover.exists()
    assert str(leftover) in r.stderr and "interrupted" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr", "src.zarr"]


def test_convert_restores_a_store_an_interrupted_overwrite_moved_aside(tmp_path, zarrgpu_bin):
    src = small_source(tmp_path)
    dst = tmp_path / "dst.zarr"
    assert run_bounded([zarrgpu_bin, "convert", src, dst, "--quiet"]).returncode == 0
    # The fallback order (no RENAME_EXCHANGE) killed between its two renames.
    moved = tmp_path / "dst.zarr.old-XyZ123"
    dst.rename(moved)
    r = run_bounded([zarrgpu_bin, "convert", src, dst, "--quiet"])
    assert "restored" in r.stderr and str(moved) in r.stderr, r.stderr
    assert r.returncode == 2  # DST exists again: without --overwrite it is kept
    assert not moved.exists()
    assert zarrgpu.open(dst)[:].tolist() == list(range(64))


def test_convert_overwrite_killed_anywhere_leaves_a_store(tmp_path, zarrgpu_bin):
    src = tmp_path / "src.zarr"
    a = zarrgpu.create_array(src, shape=[1 << 20], chunks=[1 << 12], dtype="int32")
    a[:] = np.arange(1 << 20, dtype="i4")
    dst = tmp_path / "dst.zarr"
    assert run_bounded([zarrgpu_bin, "convert", src, dst, "--quiet"]).returncode == 0
    for delay in (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8):
        p = subprocess.Popen([zarrgpu_bin, "convert", src, dst, "--overwrite", "--quiet", "--chunks", "8192"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        if not dst.is_dir():
            # Only on a file system without RENAME_EXCHANGE, killed between its
            # two renames: the next run must put the old store back.
            r = run_bounded([zarrgpu_bin, "convert", src, dst, "--quiet"])
            assert "restored" in r.stderr, f"no store under the name after a kill at {delay}s: {r.stderr}"
        assert zarrgpu.open(dst)[1000:1003].tolist() == [1000, 1001, 1002]
    r = run_bounded([zarrgpu_bin, "convert", src, dst, "--overwrite", "--quiet"])
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr", "src.zarr"]


def test_convert_output_follows_the_umask(tmp_path, zarrgpu_bin):
    src = small_source(tmp_path)
    dst = tmp_path / "dst.zarr"
    r = subprocess.run(["sh", "-c", f"umask 022 && exec {zarrgpu_bin} convert {src} {dst} --quiet"],
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(dst.stat().st_mode) == 0o755


def test_convert_of_an_all_fill_array_of_2_36_elements_ends(tmp_path, zarrgpu_bin):
    src = v3_array(tmp_path / "src.zarr", [2**36], [2**20], fill=3)
    dst = tmp_path / "dst.zarr"
    r = run_bounded([zarrgpu_bin, "convert", src, dst, "--quiet", "--no-fsync"], timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in dst.iterdir()) == ["zarr.json"]
    assert zarrgpu.open(dst)[2**35:2**35 + 2].tolist() == [3, 3]


def test_convert_of_an_empty_array_of_2_61_elements_ends(tmp_path, zarrgpu_bin):
    # 2**41 blocks, none stored: convert visits the stored blocks only.
    src = v3_array(tmp_path / "src.zarr", [2**61], [2**20], fill=7)
    dst = tmp_path / "dst.zarr"
    r = run_bounded([zarrgpu_bin, "convert", src, dst, "--quiet", "--no-fsync"], timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in dst.iterdir()) == ["zarr.json"]
    assert zarrgpu.open(dst)[2**60:2**60 + 2].tolist() == [7, 7]


# ---- concurrent shard rewrite -------------------------------------------------------------------

# The writer, run as its own process (shared with the probe in fuzz/hostile).
SHARD_REWRITER = Path(__file__).resolve().parents[2] / "fuzz" / "hostile" / "shard_rewriter.py"


def test_readers_see_one_version_of_a_shard_rewritten_by_another_process(tmp_path):
    store = tmp_path / "s.zarr"
    versions = []
    for value in (1, 2):
        a = zarrgpu.create_array(store, shape=[4096], chunks=[64], shards=[4096], dtype="int32", overwrite=True)
        a[:] = np.full(4096, value, dtype="i4") + np.arange(4096, dtype="i4") * (value - 1)
        versions.append((store / "c" / "0").read_bytes())
    (tmp_path / "A").write_bytes(versions[0])
    (tmp_path / "B").write_bytes(versions[1])
    writer = subprocess.Popen([sys.executable, str(SHARD_REWRITER), str(store / "c" / "0"), str(tmp_path / "A"),
                               str(tmp_path / "B"), "6"])
    try:
        a = zarrgpu.open(store)
        one = np.full(4096, 1, dtype="i4")
        two = np.full(4096, 2, dtype="i4") + np.arange(4096, dtype="i4")
        seen = set()
        for _ in range(300):
            got = a[:]
            if np.array_equal(got, one):
                seen.add(1)
            elif np.array_equal(got, two):
                seen.add(2)
            else:
                pytest.fail("a read mixed two versions of the shard")
    finally:
        writer.wait(timeout=30)
    assert seen  # the reads completed; usually both versions are seen


# ---- memory of sharded output ---------------------------------------------------------------------

# Run by a small interpreter: Linux carries a process's peak RSS across
# fork and exec into its rusage, so a command started by pytest itself (often
# 700 MiB after the suite's imports) would report pytest's size as its own.
RSS_PROBE = """
import json, os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(p.pid, 0)
print(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024, p.stderr.read().decode()[-2000:]]))
"""


def max_rss_bytes(argv, env=None) -> tuple[int, int]:
    """(exit status, peak RSS in bytes) of one command, from its own rusage."""
    r = subprocess.run([sys.executable, "-S", "-c", RSS_PROBE, *[str(a) for a in argv]], capture_output=True, text=True,
                       env=env or CHILD_ENV, timeout=600)
    code, rss, err = json.loads(r.stdout)
    assert code == 0, err
    return code, rss


def test_sharded_convert_holds_a_shard_no_more_than_three_times(tmp_path, zarrgpu_bin):
    # One 127 MiB shard: the block read, its encoded inner chunks and the shard
    # assembled from them; the block is encoded in place, never copied again.
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    assert run_bounded([zarrgpu_bin, "generate", "era5", src, "--time", "128", "--quiet", "--no-fsync"]).returncode == 0
    shard_bytes = 128 * 4 * 181 * 360 * 4
    code, rss = max_rss_bytes([zarrgpu_bin, "convert", src, dst, "--path", "data", "--shard", "time=128",
                               "--memory", "64MiB", "--quiet", "--no-fsync"])
    assert code == 0
    assert rss < 3 * shard_bytes, f"peak RSS {rss >> 20} MiB for a {shard_bytes >> 20} MiB shard"


def test_memory_bounds_resident_memory_of_parallel_sharded_convert(tmp_path, zarrgpu_bin):
    # Four 47 MiB shards, eight threads, --memory 384MiB: blocks in flight are
    # counted with their encoded chunks and assembled shard (three copies), so
    # two shards are in flight, not all four (which took about 4 x 120 MiB).
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    assert run_bounded([zarrgpu_bin, "generate", "era5", src, "--time", "192", "--quiet", "--no-fsync"]).returncode == 0
    budget = 384 << 20
    env = {**CHILD_ENV, "ZARRGPU_THREADS": "8"}
    _, rss = max_rss_bytes([zarrgpu_bin, "convert", src, dst, "--path", "data", "--shard", "time=48",
                            "--memory", "384MiB", "--threads", "8", "--quiet", "--no-fsync"], env)
    assert rss < budget, f"peak RSS {rss >> 20} MiB over --memory 384MiB"


def test_codec_given_by_name_is_written_with_its_full_configuration(tmp_path):
    # Issue 33: {"name": "zstd"} without a configuration was written, which
    # zarr-python refuses to open.
    zarr = pytest.importorskip("zarr")
    store = tmp_path / "z.zarr"
    a = zarrgpu.create_array(store, shape=[8], chunks=[4], dtype="float32", codecs=["zstd"])
    a[:] = np.arange(8, dtype="f4")
    codecs = json.loads((store / "zarr.json").read_text())["codecs"]
    assert codecs[-1] == {"name": "zstd", "configuration": {"level": 0, "checksum": False}}
    assert zarr.open_array(store, mode="r")[:].tolist() == list(range(8))


STRACE = __import__("shutil").which("strace")


@pytest.mark.skipif(STRACE is None, reason="needs strace")
def test_python_writes_are_synced_before_and_after_their_rename(tmp_path):
    # Issue 33: every write (data, attributes, resize, metadata) is durable once it
    # returns: fsync of the new file before its rename and of its directory after.
    store = tmp_path / "s.zarr"
    code = f"""
import numpy as np, zarrgpu
a = zarrgpu.create_array({str(store)!r}, shape=[8], chunks=[4], dtype="u1")
a[:] = np.arange(8, dtype="u1")
a.attrs["x"] = 1
a.resize([12])
"""
    r = subprocess.run([STRACE, "-f", "-qq", "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", sys.executable, "-c", code],
                       capture_output=True, text=True, timeout=TIMEOUT, env={**CHILD_ENV, "ZARRGPU_THREADS": "1"})
    assert r.returncode == 0, r.stderr[-2000:]
    calls = [line for line in r.stderr.splitlines() if "fsync" in line or "rename" in line]
    renames = [i for i, c in enumerate(calls) if "rename" in c and "zarrgpu-tmp" in c]
    # zarr.json (create), two chunks, zarr.json (attributes), zarr.json (resize)
    assert len(renames) >= 5, calls
    for i in renames:
        assert i > 0 and "fsync" in calls[i - 1], calls[max(0, i - 1):i + 2]
        assert i + 1 < len(calls) and "fsync" in calls[i + 1], calls[i:i + 2]


def test_python_selection_too_large_for_an_index_names_the_store(tmp_path):
    # 2**62 + 1 one-byte elements are within the size limits, but selections
    # index up to 2**62: a clear error naming the store.
    store = v3_array(tmp_path / "a", [2**62 + 1], [2**20])
    got = run_python(f"result = zarrgpu.open({str(store)!r})[0:2].tolist()")
    assert got.get("error") == "InvalidArgumentError", got
    assert str(store) in got["store"], got
