#!/usr/bin/env python3
"""The store fuzzer's inputs: a whole small store as entries `key NUL len(4, LE) value`.

  store_archive.py seeds OUT [CORPUS]   writes seed inputs: small stores made here
                                        (format 2 and 3, compressed, sharded,
                                        consolidated groups), plus every store of
                                        CORPUS (tests/corpus/data) under 256 KiB
  store_archive.py pack DIR OUT         one store directory -> one input
  store_archive.py unpack IN DIR        one input -> a store directory (to run the CLI on)
"""
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

MAX_STORE_BYTES = 256 << 10


def pack(entries):
    out = bytearray()
    for key, value in entries:
        out += key.encode() + b"\0" + struct.pack("<I", len(value)) + value
    return bytes(out)


def unpack(data):
    pos, entries = 0, []
    while pos < len(data):
        nul = data.find(b"\0", pos)
        if nul < 0 or nul + 5 > len(data):
            break
        (n,) = struct.unpack_from("<I", data, nul + 1)
        start = nul + 5
        if n > len(data) - start:
            break
        entries.append((data[pos:nul].decode(errors="replace"), data[start:start + n]))
        pos = start + n
    return entries


def directory_entries(root):
    entries = []
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            entries.append((os.path.relpath(p, root).replace(os.sep, "/"), open(p, "rb").read()))
    return entries


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def zstd_frame(data):
    exe = shutil.which("zstd")
    if not exe:
        return None
    return subprocess.run([exe, "-3", "-c", "-q"], input=data, capture_output=True, check=True).stdout


BYTES = {"name": "bytes", "configuration": {"endian": "little"}}


def v3_array(shape, chunks, dtype, codecs, fill=0, extra=None):
    doc = {"zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
           "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
           "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
           "fill_value": fill, "codecs": codecs, "attributes": {"units": "K"}}
    doc.update(extra or {})
    return doc


def shard(values, inner_count, inner_bytes):
    """A sharding_indexed shard of uncompressed inner chunks, index at the end (bytes + crc32c)."""
    body, index = bytearray(), bytearray()
    for i in range(inner_count):
        chunk = values[i * inner_bytes:(i + 1) * inner_bytes]
        if i == 1:  # one missing inner chunk
            index += struct.pack("<QQ", 2**64 - 1, 2**64 - 1)
            continue
        index += struct.pack("<QQ", len(body), len(chunk))
        body += chunk
    return bytes(body) + bytes(index) + struct.pack("<I", crc32c(bytes(index)))


def made_here():
    stores = {}
    data8 = bytes(range(64))
    stores["v3_bytes_u1"] = [("zarr.json", json.dumps(v3_array([10, 6], [4, 4], "uint8", [BYTES], 7)).encode())] + [
        (f"c/{i}/{j}", data8[:16]) for i in range(3) for j in range(2)]
    i16 = struct.pack("<16h", *range(-8, 8))
    stores["v3_gzip_i2"] = [("zarr.json", json.dumps(v3_array([16], [8], "int16", [
        BYTES, {"name": "gzip", "configuration": {"level": 5}}])).encode()),
        ("c/0", gzip.compress(i16[:16], mtime=0)), ("c/1", gzip.compress(i16[16:], mtime=0))]
    f4 = struct.pack("<8f", *[0.5 * k for k in range(8)])
    z = zstd_frame(f4)
    if z:
        stores["v3_zstd_crc_f4"] = [("zarr.json", json.dumps(v3_array([8], [8], "float32", [
            BYTES, {"name": "zstd", "configuration": {"level": 3, "checksum": False}},
            {"name": "crc32c"}], "NaN")).encode()), ("c/0", z + struct.pack("<I", crc32c(z)))]
    sh = {"name": "sharding_indexed", "configuration": {
        "chunk_shape": [4], "codecs": [BYTES],
        "index_codecs": [BYTES, {"name": "crc32c"}], "index_location": "end"}}
    stores["v3_sharded_u1"] = [("zarr.json", json.dumps(v3_array([32], [16], "uint8", [sh])).encode()),
                               ("c/0", shard(data8, 4, 4)), ("c/1", shard(data8[16:], 4, 4))]
    t = {"name": "transpose", "configuration": {"order": [1, 0]}}
    stores["v3_transpose_u2"] = [("zarr.json", json.dumps(v3_array([4, 4], [4, 4], "uint16", [t, BYTES])).encode()),
                                 ("c/0/0", struct.pack("<16H", *range(16)))]
    zarray = {"zarr_format": 2, "shape": [12], "chunks": [5], "dtype": "<i4", "compressor": {"id": "zlib", "level": 1},
              "filters": None, "fill_value": 0, "order": "C"}
    ints = struct.pack("<15i", *range(15))
    stores["v2_zlib_i4"] = [(".zarray", json.dumps(zarray).encode()), (".zattrs", b'{"_ARRAY_DIMENSIONS": ["x"]}')] + [
        (str(i), zlib.compress(ints[i * 20:(i + 1) * 20])) for i in range(3)]
    a2 = dict(zarray, compressor=None, dtype=">u2", shape=[3, 3], chunks=[2, 2], order="F", dimension_separator="/")
    zmeta = {"zarr_consolidated_format": 1, "metadata": {
        ".zgroup": {"zarr_format": 2}, ".zattrs": {"title": "t"},
        "x/.zarray": a2, "x/.zattrs": {}}}
    stores["v2_group_consolidated"] = [(".zgroup", b'{"zarr_format": 2}'), (".zattrs", b'{"title": "t"}'),
                                       (".zmetadata", json.dumps(zmeta).encode()),
                                       ("x/.zarray", json.dumps(a2).encode()),
                                       ("x/0/0", struct.pack(">4H", 1, 2, 3, 4)), ("x/1/1", struct.pack(">4H", 5, 6, 7, 8))]
    arr = v3_array([4], [2], "bool", [BYTES], False)
    group = {"zarr_format": 3, "node_type": "group", "attributes": {},
             "consolidated_metadata": {"kind": "inline", "must_understand": False, "metadata": {"b": arr}}}
    stores["v3_group_consolidated"] = [("zarr.json", json.dumps(group).encode()),
                                       ("b/zarr.json", json.dumps(arr).encode()), ("b/c/0", b"\x01\x00")]
    return stores


def main():
    cmd = sys.argv[1]
    if cmd == "pack":
        open(sys.argv[3], "wb").write(pack(directory_entries(sys.argv[2])))
    elif cmd == "unpack":
        for key, value in unpack(open(sys.argv[2], "rb").read()):
            p = os.path.join(sys.argv[3], *[k for k in key.split("/") if k not in ("", ".", "..")])
            os.makedirs(os.path.dirname(p) or ".", exist_ok=True)
            if not os.path.isdir(p):
                open(p, "wb").write(value)
    elif cmd == "seeds":
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        for name, entries in made_here().items():
            open(os.path.join(out, "seed_" + name), "wb").write(pack(entries))
        corpus = sys.argv[3] if len(sys.argv) > 3 else ""
        if corpus and os.path.isdir(corpus):
            for name in sorted(os.listdir(corpus)):
                root = os.path.join(corpus, name)
                if not os.path.isdir(root):
                    continue
                entries = directory_entries(root)
                if sum(len(v) for _, v in entries) <= MAX_STORE_BYTES:
                    open(os.path.join(out, "corpus_" + name), "wb").write(pack(entries))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
