"""Hostile stores for the probe (issue 33): each builder makes one store.

A builder takes the store directory to create and the case's `outside`
directory (a sentinel beside the store that nothing may write into; links
in hostile stores point there) and returns a `Target`: where the array
to read is and which selection to read. Stores are groups holding the
array `a` with dimension names, so that xarray's engine reaches the
array too. Kinds: the issue's list (nested JSON, huge shapes, overflowing
products, decompression bombs, lying shard indexes, special files, bad
encodings) and their kin, then mutations of every store of the
conformance corpus (tests/corpus/data).
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import random
import shutil
import socket
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass
class Target:
    array: str = "a"          # path of the array inside the store
    select: str | None = None  # `cat --select` syntax; None: a corner of 2 per dimension
    ndim: int = 1
    read_all: bool = False    # read the whole array (the selection is the hostile part)


BYTES = {"name": "bytes", "configuration": {"endian": "little"}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
GZIP = {"name": "gzip", "configuration": {"level": 5}}


def write_json(path: Path, doc, raw: bytes | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw if raw is not None else json.dumps(doc).encode())


def group(store: Path, attrs=None) -> None:
    write_json(store / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": attrs or {}})


def v3_doc(shape, chunks, dtype="uint8", codecs=None, fill=0, attrs=None) -> dict:
    return {"zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill, "codecs": codecs or [BYTES], "attributes": attrs or {},
            "dimension_names": [f"d{i}" for i in range(len(shape))]}


def v3(store: Path, shape, chunks, dtype="uint8", codecs=None, fill=0, attrs=None) -> Path:
    group(store)
    write_json(store / "a" / "zarr.json", v3_doc(shape, chunks, dtype, codecs, fill, attrs))
    return store / "a"


def v2(store: Path, shape, chunks, dtype="|u1", compressor=None, filters=None, fill=0) -> Path:
    write_json(store / ".zgroup", {"zarr_format": 2})
    a = store / "a"
    write_json(a / ".zarray", {"zarr_format": 2, "shape": shape, "chunks": chunks, "dtype": dtype,
                               "compressor": compressor, "filters": filters, "fill_value": fill,
                               "order": "C", "dimension_separator": "."})
    write_json(a / ".zattrs", {"_ARRAY_DIMENSIONS": [f"d{i}" for i in range(len(shape))]})
    return a


def sharded(inner, codecs=None, location="end") -> list:
    return [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": inner, "codecs": codecs or [BYTES], "index_location": location,
        "index_codecs": [BYTES, {"name": "crc32c"}]}}]


def chunk(array: Path, key: str, data: bytes) -> Path:
    p = array / key
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


# ---- payloads ------------------------------------------------------------------------------------

def nested_list(depth: int) -> str:
    return "[" * depth + "]" * depth


def nested_object(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def zstd_rle_bomb(decoded_gib: int) -> bytes:
    """A zstd frame of RLE blocks (RFC 8878 §3.1.1.2): 4 bytes per 128 KiB of zeros, no content size."""
    block = 128 << 10
    n = (decoded_gib << 30) // block
    body = bytearray((0xFD2FB528).to_bytes(4, "little") + bytes([0x00, 0x38]))
    for i in range(n):
        body += ((1 if i == n - 1 else 0) | (1 << 1) | (block << 3)).to_bytes(3, "little") + b"\0"
    return bytes(body)


def zstd_lying_size() -> bytes:
    """A frame whose header says 4 bytes but which holds 1 GiB of RLE blocks."""
    frame = bytearray(zstd_rle_bomb(1))
    frame[4:6] = bytes([0x20, 0x04])  # single segment, 1-byte content size = 4
    return bytes(frame)


_GZIP_MEMBER: bytes | None = None


def gzip_bomb(decoded_gib: int) -> bytes:
    """Concatenated gzip members (RFC 1952 §2.2) of 64 MiB of zeros each."""
    global _GZIP_MEMBER
    if _GZIP_MEMBER is None:
        _GZIP_MEMBER = gzip.compress(bytes(64 << 20), compresslevel=9, mtime=0)
    return _GZIP_MEMBER * (decoded_gib * 16)


def zlib_bomb() -> bytes:
    return zlib.compress(bytes(64 << 20), 9)


def bz2_bomb() -> bytes:
    return bz2.compress(bytes(32 << 20), 9)


def xz_huge_dictionary() -> bytes:
    """An xz stream whose LZMA2 filter asks for a 1.5 GiB dictionary (properties byte 39),
    with the block header's CRC32 fixed up: a decoder without a memory limit allocates it."""
    data = bytearray(lzma.compress(bytes(4096), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32))
    hdr = 12
    size = (data[hdr] + 1) * 4
    header = data[hdr:hdr + size]
    i = header.index(b"\x21\x01") + 2  # filter id LZMA2, 1 property byte
    header[i] = 39
    header[-4:] = struct.pack("<I", zlib.crc32(bytes(header[:-4])))
    data[hdr:hdr + size] = header
    return bytes(data)


def lzma_alone_huge_dictionary() -> bytes:
    """A .lzma (alone) header asking for a 4 GiB - 1 dictionary and an unknown size."""
    return bytes([0x5D]) + struct.pack("<I", 0xFFFFFFFF) + b"\xff" * 8 + bytes(64)


def blosc_lying_header() -> bytes:
    """A Blosc 1 header claiming 2 GiB decoded from 32 bytes (memcpyed flag)."""
    return bytes([2, 1, 0x02, 1]) + struct.pack("<III", 2**31 - 1, 2**31 - 1, 48) + bytes(32)


def lz4_lying_header() -> bytes:
    """numcodecs' LZ4: a little-endian uint32 decoded size (here 2 GiB) before the block."""
    return struct.pack("<I", 2**31 - 1) + bytes([0x1F, 0, 0, 0, 0, 0, 0, 0])


# ---- the issue's cases and their kin ----------------------------------------------------------------

def c_nested_attrs(depth, shape="list"):
    def build(s: Path, out: Path):
        group(s)
        doc = json.dumps(v3_doc([4], [4]))
        nest = nested_list(depth) if shape == "list" else nested_object(depth)
        write_json(s / "a" / "zarr.json", None, doc.replace('"attributes": {}', f'"attributes": {{"x": {nest}}}').encode())
        return Target()
    return build


def c_nested_codec_config(depth):
    def build(s: Path, out: Path):
        group(s)
        doc = json.dumps(v3_doc([4], [4], codecs=[BYTES, ZSTD]))
        doc = doc.replace('"checksum": false', f'"checksum": false, "x": {nested_list(depth)}')
        write_json(s / "a" / "zarr.json", None, doc.encode())
        return Target()
    return build


def c_nested_group_attrs(depth):
    def build(s: Path, out: Path):
        v3(s, [4], [4])
        write_json(s / "zarr.json", None,
                   f'{{"zarr_format": 3, "node_type": "group", "attributes": {{"x": {nested_list(depth)}}}}}'.encode())
        return Target()
    return build


def c_v2_nested(doc_name, depth):
    def build(s: Path, out: Path):
        a = v2(s, [4], [4])
        if doc_name == ".zmetadata":
            write_json(s / ".zmetadata", None,
                       f'{{"zarr_consolidated_format": 1, "metadata": {{"x": {nested_list(depth)}}}}}'.encode())
        elif doc_name == ".zarray":
            raw = (a / ".zarray").read_text().replace('"compressor": null', f'"compressor": {{"id": "zlib", "x": {nested_list(depth)}}}')
            write_json(a / ".zarray", None, raw.encode())
        else:
            write_json(a / doc_name, None, f'{{"_ARRAY_DIMENSIONS": ["d0"], "x": {nested_list(depth)}}}'.encode())
        return Target()
    return build


def c_raw_array_doc(raw: bytes):
    """The array's zarr.json replaced by these bytes."""
    def build(s: Path, out: Path):
        a = v3(s, [4], [4])
        (a / "zarr.json").write_bytes(raw)
        return Target()
    return build


def c_doc_edit(edit: Callable[[dict], None], v=3):
    def build(s: Path, out: Path):
        if v == 3:
            a = v3(s, [4], [4])
            doc = json.loads((a / "zarr.json").read_text())
            edit(doc)
            write_json(a / "zarr.json", doc)
        else:
            a = v2(s, [4], [4])
            doc = json.loads((a / ".zarray").read_text())
            edit(doc)
            write_json(a / ".zarray", doc)
        return Target()
    return build


def c_v3(shape, chunks, dtype="uint8", codecs=None, fill=0, chunks_data=None, **target):
    def build(s: Path, out: Path):
        a = v3(s, shape, chunks, dtype, codecs, fill)
        for key, data in (chunks_data or {}).items():
            chunk(a, key, data() if callable(data) else data)
        return Target(**{"ndim": len(shape), **target})
    return build


def c_v2(shape, chunks, dtype="|u1", compressor=None, filters=None, chunks_data=None, **target):
    def build(s: Path, out: Path):
        a = v2(s, shape, chunks, dtype, compressor, filters)
        for key, data in (chunks_data or {}).items():
            chunk(a, key, data() if callable(data) else data)
        return Target(**{"ndim": len(shape), **target})
    return build


def shard_index(entries: list[tuple[int, int]]) -> bytes:
    """A sharding index (offset, nbytes pairs, little-endian uint64) with its crc32c."""
    import crc32c  # noqa: PLC0415 (google-crc32c is optional; only these cases need it)
    body = b"".join(struct.pack("<QQ", o, n) for o, n in entries)
    return body + struct.pack("<I", crc32c.crc32c(body))


def c_shard_lie(entries):
    def build(s: Path, out: Path):
        a = v3(s, [8], [8], codecs=sharded([4]))
        chunk(a, "c/0", bytes(range(16)) + shard_index(entries))
        return Target()
    return build


def c_special(where: str, kind: str):
    """A FIFO, socket, device or link loop where a document or a chunk should be."""
    def build(s: Path, out: Path):
        if where.startswith("v2"):
            a = v2(s, [8], [8])
        else:
            a = v3(s, [8], [8])
        path = {"root_zarr_json": s / "zarr.json", "array_zarr_json": a / "zarr.json", "chunk": a / "c" / "0",
                "v2_zarray": a / ".zarray", "v2_zattrs": a / ".zattrs", "v2_zmetadata": s / ".zmetadata",
                "v2_chunk": a / "0", "v2_zgroup": s / ".zgroup"}[where]
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "socket":
            sock = socket.socket(socket.AF_UNIX)
            sock.bind(str(path))
            sock.close()
        elif kind == "dev_zero":
            os.symlink("/dev/zero", path)
        elif kind == "loop":
            os.symlink(path.name, path)
        elif kind == "directory":
            path.mkdir()
        elif kind == "sparse_8gib":
            big = out / "sparse"
            with open(big, "wb") as f:
                f.truncate(8 << 30)
            os.symlink(big, path)
        return Target()
    return build


def c_symlinked_array_dir(s: Path, out: Path):
    """The array directory is a link to a directory outside the store (reads may follow it)."""
    v3(out / "elsewhere", [8], [8])
    group(s)
    os.symlink(out / "elsewhere" / "a", s / "a")
    return Target()


ISSUE_CASES: dict[str, Callable] = {
    # nested JSON, 1,000 and 100,000 deep, in every document
    "nested_attrs_list_1k": c_nested_attrs(1000),
    "nested_attrs_list_100k": c_nested_attrs(100_000),
    "nested_attrs_object_100k": c_nested_attrs(100_000, "object"),
    "nested_codec_config_1k": c_nested_codec_config(1000),
    "nested_codec_config_100k": c_nested_codec_config(100_000),
    "nested_group_attrs_100k": c_nested_group_attrs(100_000),
    "nested_v2_zattrs_100k": c_v2_nested(".zattrs", 100_000),
    "nested_v2_zarray_100k": c_v2_nested(".zarray", 100_000),
    "nested_v2_zmetadata_100k": c_v2_nested(".zmetadata", 100_000),
    "nested_attrs_list_500_within_limit": c_nested_attrs(500),
    # encodings and JSON kin
    "json_not_utf8": c_raw_array_doc(json.dumps(v3_doc([4], [4], attrs={"x": "é"})).encode().replace(b"\\u00e9", b"\xe9")),
    "json_utf16": c_raw_array_doc(json.dumps(v3_doc([4], [4])).encode("utf-16")),
    "json_utf8_bom": c_raw_array_doc(b"\xef\xbb\xbf" + json.dumps(v3_doc([4], [4])).encode()),
    "json_overlong_utf8": c_raw_array_doc(json.dumps(v3_doc([4], [4], attrs={"x": "A"})).encode().replace(b'"A"', b'"\xc0\xc1"')),
    "json_lone_surrogate": c_raw_array_doc(json.dumps(v3_doc([4], [4], attrs={"x": "A"})).encode().replace(b'"A"', b'"\\ud800"')),
    "json_nul_in_string": c_raw_array_doc(json.dumps(v3_doc([4], [4], attrs={"x": "A"})).encode().replace(b'"A"', b'"a\\u0000b"')),
    "json_nan_token": c_raw_array_doc(json.dumps(v3_doc([4], [4], attrs={"x": "A"})).encode().replace(b'"A"', b"NaN")),
    "json_number_1e999": c_raw_array_doc(json.dumps(v3_doc([4], [4], attrs={"x": "A"})).encode().replace(b'"A"', b"1e999")),
    "json_empty": c_raw_array_doc(b""),
    "json_truncated": c_raw_array_doc(json.dumps(v3_doc([4], [4])).encode()[:60]),
    "json_top_level_array": c_raw_array_doc(b"[1, 2, 3]"),
    "json_duplicate_keys": c_raw_array_doc(json.dumps(v3_doc([4], [4])).encode().replace(b"{", b'{"shape": [99999999999], ', 1)),
    "json_65mib": c_raw_array_doc(json.dumps(v3_doc([4], [4], attrs={"x": "y" * (65 << 20)})).encode()),
    "json_sparse_8gib_zarr_json": c_special("array_zarr_json", "sparse_8gib"),
    # sizes: checked arithmetic
    "shape_2_62_float32": c_v3([2**62], [2**62], "float32"),
    "shape_2_64_minus_1": c_v3([2**64 - 1], [1]),
    "shape_2_64": c_v3([2**64], [1]),
    "shape_negative": c_v3([-1], [1]),
    "shape_float": c_doc_edit(lambda d: d.update(shape=[4.5])),
    "shape_string": c_doc_edit(lambda d: d.update(shape="4")),
    "chunk_zero": c_v3([4], [0]),
    "chunk_rank_mismatch": c_v3([4], [4, 4]),
    "chunk_product_overflow": c_v3([2**32, 2**32], [2**32, 2**32], ndim=2),
    "two_dims_wrap_int64": c_v3([2**40, 2**40], [1, 1], "float64"),
    "selection_bytes_wrap": c_v3([2**31, 2**31], [1024, 1024], "float32", read_all=True),
    "selection_bytes_2_63": c_v3([2**32, 2**29], [1024, 1024], "float32", read_all=True),
    "huge_fill_u1_2_61": c_v3([2**61], [2**20], fill=7, select=f"{2**40}:{2**40 + 3}"),
    "all_fill_2_36_convert": c_v3([2**36], [2**20], fill=3),
    "v2_shape_2_64_minus_1": c_v2([2**64 - 1], [1]),
    "v2_chunk_product_overflow": c_v2([2**32, 2**32], [2**32, 2**32], ndim=2),
    # Mutation fuzzing's find: a chunk of 8 GiB less 4 bytes, within an 8 GiB
    # RLIMIT_AS but not within what the process has left of it.
    "v2_chunk_8_gib_less_4": c_v2([300], [2**31 - 1], "<u4", compressor={"id": "zlib", "level": 1},
                                  chunks_data={"0": zlib.compress(bytes(16))}),
    "v2_itemsize_huge": c_doc_edit(lambda d: d.update(dtype="|S9223372036854775807"), v=2),
    "v2_chunks_zero": c_doc_edit(lambda d: d.update(chunks=[0]), v=2),
    "v2_unknown_compressor": c_doc_edit(lambda d: d.update(compressor={"id": "nope"}), v=2),
    "unknown_codec": c_doc_edit(lambda d: d.update(codecs=[BYTES, {"name": "nope"}])),
    "codec_config_wrong_type": c_doc_edit(lambda d: d.update(codecs=[BYTES, {"name": "zstd", "configuration": {"level": "x"}}])),
    "unknown_data_type": c_doc_edit(lambda d: d.update(data_type="float128")),
    "fill_value_wrong_type": c_doc_edit(lambda d: d.update(fill_value={"x": 1})),
    "no_bytes_codec": c_doc_edit(lambda d: d.update(codecs=[ZSTD])),
    # decompression bombs: the decoded size is bounded by the metadata
    "bomb_bytes_zstd_zstd_16gib": c_v3([1024], [1024], codecs=[BYTES, ZSTD, ZSTD], chunks_data={"c/0": lambda: zstd_rle_bomb(16)}),
    "bomb_bytes_zstd_gzip_4gib": c_v3([1024], [1024], codecs=[BYTES, ZSTD, GZIP], chunks_data={"c/0": lambda: gzip_bomb(4)}),
    "bomb_zstd_16gib": c_v3([1024], [1024], codecs=[BYTES, ZSTD], chunks_data={"c/0": lambda: zstd_rle_bomb(16)}),
    "bomb_zstd_lying_content_size": c_v3([1024], [1024], codecs=[BYTES, ZSTD], chunks_data={"c/0": zstd_lying_size}),
    "bomb_gzip_4gib": c_v3([1024], [1024], codecs=[BYTES, GZIP], chunks_data={"c/0": lambda: gzip_bomb(4)}),
    "bomb_v2_zlib": c_v2([1024], [1024], compressor={"id": "zlib", "level": 1}, chunks_data={"0": zlib_bomb}),
    "bomb_v2_gzip": c_v2([1024], [1024], compressor={"id": "gzip", "level": 1}, chunks_data={"0": lambda: gzip_bomb(1)}),
    "bomb_v2_zstd": c_v2([1024], [1024], compressor={"id": "zstd", "level": 1}, chunks_data={"0": lambda: zstd_rle_bomb(4)}),
    "bomb_v2_bz2": c_v2([1024], [1024], compressor={"id": "bz2", "level": 1}, chunks_data={"0": bz2_bomb}),
    "bomb_v2_lzma_xz_dict_1_5gib": c_v2([1024], [1024], compressor={"id": "lzma", "format": 1, "check": -1, "preset": None, "filters": None}, chunks_data={"0": xz_huge_dictionary}),
    "bomb_v2_lzma_alone_dict_4gib": c_v2([1024], [1024], compressor={"id": "lzma", "format": 2, "check": -1, "preset": None, "filters": None}, chunks_data={"0": lzma_alone_huge_dictionary}),
    "bomb_v2_blosc_lying_header": c_v2([1024], [1024], compressor={"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}, chunks_data={"0": blosc_lying_header}),
    "bomb_v2_lz4_lying_header": c_v2([1024], [1024], compressor={"id": "lz4", "acceleration": 1}, chunks_data={"0": lz4_lying_header}),
    "bomb_shard_inner_zstd_16gib": c_v3([8], [8], codecs=sharded([8], [BYTES, ZSTD]), chunks_data={"c/0": lambda: zstd_rle_bomb(16) + shard_index([(0, len(zstd_rle_bomb(16)))])}),
    # shard indexes
    "shard_index_32gib": c_v3([2**31], [2**31], codecs=sharded([1]), chunks_data={"c/0": bytes(100)}),
    "shard_grid_128_x_2_32_over_64x64": c_v3([128, 2**32], [128, 2**32], codecs=sharded([64, 64]), ndim=2),
    "shard_shorter_than_index": c_v3([64], [16], codecs=sharded([4]), chunks_data={"c/0": b"\x01\x02\x03"}),
    "shard_empty_file": c_v3([64], [16], codecs=sharded([4]), chunks_data={"c/0": b""}),
    "shard_index_past_end": c_shard_lie([(0, 4), (1 << 40, 4)]),
    "shard_index_offset_overflow": c_shard_lie([(2**64 - 2, 10), (0, 4)]),
    "shard_index_length_overflow": c_shard_lie([(4, 2**64 - 2), (0, 4)]),
    "shard_index_overlapping": c_shard_lie([(0, 16), (0, 16)]),
    "shard_index_bad_crc": c_v3([8], [8], codecs=sharded([4]), chunks_data={"c/0": bytes(range(8)) + struct.pack("<QQQQ", 0, 4, 4, 4) + b"\0\0\0\0"}),
    "shard_inner_not_dividing": c_v3([8], [8], codecs=sharded([3])),
    # special files
    "fifo_root_zarr_json": c_special("root_zarr_json", "fifo"),
    "fifo_array_zarr_json": c_special("array_zarr_json", "fifo"),
    "fifo_chunk": c_special("chunk", "fifo"),
    "fifo_v2_zarray": c_special("v2_zarray", "fifo"),
    "fifo_v2_zattrs": c_special("v2_zattrs", "fifo"),
    "fifo_v2_zmetadata": c_special("v2_zmetadata", "fifo"),
    "fifo_v2_zgroup": c_special("v2_zgroup", "fifo"),
    "fifo_v2_chunk": c_special("v2_chunk", "fifo"),
    "socket_chunk": c_special("chunk", "socket"),
    "dev_zero_chunk": c_special("chunk", "dev_zero"),
    "dev_zero_zarr_json": c_special("array_zarr_json", "dev_zero"),
    "link_loop_chunk": c_special("chunk", "loop"),
    "link_loop_zarr_json": c_special("array_zarr_json", "loop"),
    "directory_as_chunk": c_special("chunk", "directory"),
    "directory_as_zarr_json": c_special("array_zarr_json", "directory"),
    "sparse_8gib_chunk": c_special("chunk", "sparse_8gib"),
    "symlinked_array_dir_read": c_symlinked_array_dir,
}


# ---- mutations of the conformance corpus ---------------------------------------------------------------

def _arrays(store: Path) -> list[Path]:
    found = []
    for p in sorted(store.rglob("*")):
        if p.name == ".zarray" or (p.name == "zarr.json" and json.loads(p.read_text()).get("node_type") == "array"):
            found.append(p.parent)
    return found


def _chunk_files(array: Path) -> list[Path]:
    meta = {".zarray", ".zattrs", ".zgroup", ".zmetadata", "zarr.json"}
    return sorted((p for p in array.rglob("*") if p.is_file() and p.name not in meta), key=lambda p: (-p.stat().st_size, str(p)))


def _copy_as_group(src: Path, dst: Path) -> Path:
    """Copies a corpus store; an array at the root moves to `a` under a new group (xarray opens groups)."""
    if (src / ".zarray").exists() or ((src / "zarr.json").exists() and json.loads((src / "zarr.json").read_text()).get("node_type") == "array"):
        v3_root = (src / "zarr.json").exists()
        if v3_root:
            group(dst)
        else:
            write_json(dst / ".zgroup", {"zarr_format": 2})
        shutil.copytree(src, dst / "a")
        a = dst / "a"
        if v3_root:
            doc = json.loads((a / "zarr.json").read_text())
            doc["dimension_names"] = [f"d{i}" for i in range(len(doc["shape"]))]
            write_json(a / "zarr.json", doc)
        else:
            shape = json.loads((a / ".zarray").read_text())["shape"]
            attrs = json.loads((a / ".zattrs").read_text()) if (a / ".zattrs").exists() else {}
            attrs["_ARRAY_DIMENSIONS"] = [f"d{i}" for i in range(len(shape))]
            write_json(a / ".zattrs", attrs)
        return a
    shutil.copytree(src, dst)
    arrays = _arrays(dst)
    return max(arrays, key=lambda a: sum(p.stat().st_size for p in _chunk_files(a)))


def _mutate_chunk(how: str):
    def mutate(path: Path, rng: random.Random) -> None:
        data = bytearray(path.read_bytes())
        if how == "truncate_half":
            data = data[: len(data) // 2]
        elif how == "empty":
            data = bytearray()
        elif how == "flip_middle":
            for i in range(len(data) // 2, min(len(data), len(data) // 2 + 8)):
                data[i] ^= 0xFF
        elif how == "random_same_size":
            data = bytearray(rng.randbytes(len(data)))
        elif how == "garbage_appended":
            data += rng.randbytes(100)
        elif how == "header_zeroed":
            data[:16] = bytes(min(16, len(data)))
        path.write_bytes(bytes(data))
    return mutate


CHUNK_MUTATIONS = ["truncate_half", "empty", "flip_middle", "random_same_size", "garbage_appended", "header_zeroed"]
META_MUTATIONS = ["meta_truncate_half", "meta_huge_shape", "meta_codecs_swapped"]


def _mutate_meta(doc_path: Path, how: str) -> None:
    raw = doc_path.read_bytes()
    if how == "meta_truncate_half":
        doc_path.write_bytes(raw[: len(raw) // 2])
        return
    doc = json.loads(raw)
    if how == "meta_huge_shape":
        doc["shape"] = [2**62 + 1] + list(doc["shape"])[1:] if doc["shape"] else [2**62]
    elif how == "meta_codecs_swapped":
        if "codecs" in doc:
            doc["codecs"] = list(reversed(doc["codecs"]))
        else:
            doc["dtype"] = "<f8" if doc["dtype"] != "<f8" else "<i2"
    write_json(doc_path, doc)


def corpus_cases(corpus: Path, seed: int = 33) -> dict[str, Callable]:
    cases: dict[str, Callable] = {}
    for src in sorted(corpus.glob("*.zarr")):
        for how in CHUNK_MUTATIONS + META_MUTATIONS:
            def build(s: Path, out: Path, src=src, how=how):
                a = _copy_as_group(src, s)
                rng = random.Random(f"{seed}:{src.name}:{how}")
                doc = a / ("zarr.json" if (a / "zarr.json").exists() else ".zarray")
                ndim = len(json.loads(doc.read_text())["shape"])
                if how.startswith("meta_"):
                    _mutate_meta(doc, how)
                else:
                    files = _chunk_files(a)
                    if not files:
                        return None  # nothing stored: no such case
                    _mutate_chunk(how)(files[0], rng)
                # The whole array, except where the mutation made it 2^62 elements: a
                # read of all of them is a (correctly refused) request for 4 EiB.
                return Target(array=str(a.relative_to(s)), ndim=ndim, read_all=how != "meta_huge_shape")
            cases[f"corpus/{src.name[:-5]}/{how}"] = build
    return cases
