"""Writes the reference encodings the codec tests decode (and, where the
library versions match, compare our encoder against).

Run once with the venv that has numcodecs:
    /tmp/venvtest/bin/python tests/codec/make_fixtures.py
It writes tests/codec/fixtures/NAME.raw (decoded bytes, C order, little-endian),
NAME.enc (as numcodecs encodes them) and manifest.json, which names each
case's codec as zarr.json would, its data type and shape, and whether our
encoder must reproduce the bytes exactly (same library, deterministic output).
"""
import json
import pathlib

import numcodecs
import numpy as np

OUT = pathlib.Path(__file__).parent / "fixtures"
OUT.mkdir(exist_ok=True)
manifest = []


def case(name, codec_json, arr, enc, exact):
    arr = np.ascontiguousarray(arr)
    (OUT / f"{name}.raw").write_bytes(arr.astype(arr.dtype.newbyteorder("<")).tobytes())
    (OUT / f"{name}.enc").write_bytes(bytes(enc))
    manifest.append({"name": name, "codec": codec_json, "dtype": arr.dtype.str, "shape": list(arr.shape),
                     "encode_exact": exact})


rng = np.random.default_rng(42)
smooth = (np.sin(np.arange(512) / 20.0) * 1000).astype("<f4")
ints = np.cumsum(rng.integers(-50, 50, 512)).astype("<i4")

# blosc: every cname and shuffle (c-blosc 1.21 here and in numcodecs).
for cname in ["lz4", "lz4hc", "blosclz", "zstd", "zlib"]:
    for shuffle, sname in [(0, "noshuffle"), (1, "shuffle"), (2, "bitshuffle")]:
        codec = numcodecs.Blosc(cname=cname, clevel=5, shuffle=shuffle, blocksize=0)
        case(f"blosc_{cname}_{sname}",
             {"name": "blosc", "configuration": {"cname": cname, "clevel": 5, "shuffle": sname,
                                                  "typesize": 4, "blocksize": 0}},
             smooth, codec.encode(smooth), False)
codec = numcodecs.Blosc(cname="lz4", clevel=9, shuffle=-1, blocksize=256)
u8 = (np.arange(700) % 37).astype("u1")
case("numcodecs_blosc_autoshuffle_u1",
     {"name": "numcodecs.blosc", "configuration": {"cname": "lz4", "clevel": 9, "shuffle": -1, "blocksize": 256}},
     u8, codec.encode(u8), False)

for level, checksum in [(1, False), (3, True), (-5, False), (19, False)]:
    codec = numcodecs.Zstd(level=level, checksum=checksum)
    case(f"zstd_l{level}_{'chk' if checksum else 'nochk'}",
         {"name": "zstd", "configuration": {"level": level, "checksum": checksum}},
         ints, codec.encode(ints), True)

for level in [1, 5, 9]:
    # Python's gzip writes the current time into the header: not reproducible.
    case(f"gzip_l{level}", {"name": "gzip", "configuration": {"level": level}},
         smooth, numcodecs.GZip(level=level).encode(smooth), False)
for level in [1, 9]:
    case(f"zlib_l{level}", {"name": "numcodecs.zlib", "configuration": {"level": level}},
         ints, numcodecs.Zlib(level=level).encode(ints), True)
for acc in [1, 10]:
    case(f"lz4_a{acc}", {"name": "numcodecs.lz4", "configuration": {"acceleration": acc}},
         ints, numcodecs.LZ4(acceleration=acc).encode(ints), True)
for es in [2, 4, 8]:
    case(f"shuffle_e{es}", {"name": "numcodecs.shuffle", "configuration": {"elementsize": es}},
         smooth, numcodecs.Shuffle(elementsize=es).encode(smooth), True)

# Value filters: .raw is the decoded array, .enc the filter's output, whose
# decoding numcodecs defines (decode(enc) is not always the input: rounding).
def delta(dtype, astype, arr):
    c = numcodecs.Delta(dtype=dtype, astype=astype)
    enc = c.encode(arr)
    name = f"delta_{np.dtype(dtype).str[1:]}_{np.dtype(astype).str[1:]}"
    case(name + "_enc", {"name": "numcodecs.delta", "configuration": {"dtype": dtype, "astype": astype}},
         arr, enc, True)
    dec = c.decode(enc)
    case(name + "_dec", {"name": "numcodecs.delta", "configuration": {"dtype": dtype, "astype": astype}},
         np.asarray(dec).astype(arr.dtype).reshape(arr.shape), enc, False)

delta("<i4", "<i4", ints)
delta("<i8", "<i2", (ints.astype("<i8") - ints[0]) * 1000)
delta("<i2", "<i1", (np.arange(300) * 7).astype("<i2"))
delta("<u1", "<u1", u8)
delta("<f4", "<f4", smooth)
delta("<f8", "<f4", smooth.astype("<f8") / 3)
delta("<f2", "<f2", (smooth / 7).astype("<f2"))


def fso(dtype, astype, offset, scale, arr, tag):
    c = numcodecs.FixedScaleOffset(offset=offset, scale=scale, dtype=dtype, astype=astype)
    spec = {"name": "numcodecs.fixedscaleoffset",
            "configuration": {"offset": offset, "scale": scale, "dtype": dtype, "astype": astype}}
    enc = c.encode(arr)
    case(f"fso_{tag}_enc", spec, arr, enc, True)
    dec = np.asarray(c.decode(enc)).reshape(arr.shape)
    case(f"fso_{tag}_dec", spec, dec, enc, False)

grid = (np.arange(32 * 32).reshape(32, 32) % 500) / 7.0 + 0.005
fso("<f8", "<i4", 250, 100, grid.astype("<f8"), "f8_i4_int")
fso("<f4", "<u2", 1.5, 10.0, grid.astype("<f4"), "f4_u2_float")
fso("<f2", "<i2", 2, 4, (grid / 10).astype("<f2"), "f2_i2")
fso("<i4", "<i2", 100, 3, (ints * 2).astype("<i4"), "i4_i2_int")
fso("<i4", "<i2", 0.5, 2, ints.astype("<i4"), "i4_i2_floatoffset")
fso("<i8", "<u1", 3, 0.5, (ints % 200).astype("<i8"), "i8_u1_floatscale")
fso("<f8", "<f4", -1.25, 3.0, grid.astype("<f8"), "f8_f4")
# Halves round to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2.
fso("<f8", "<i1", 0, 1, np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.49999, 126.6, np.nan], "<f8"), "half_even")

# Compressors and checksums with a Debian library (libbz2, liblzma, zlib).
text = (np.arange(3000) % 251).astype("u1").tobytes() + b"zarrgpu " * 500
text_arr = np.frombuffer(text, "u1")
for level in [1, 9]:
    case(f"bz2_l{level}", {"name": "numcodecs.bz2", "configuration": {"level": level}},
         text_arr, numcodecs.BZ2(level=level).encode(text_arr), True)
lzma_cases = {
    "lzma_default": {"format": 1, "check": -1, "preset": None, "filters": None},
    "lzma_preset1_crc32": {"format": 1, "check": 1, "preset": 1, "filters": None},
    "lzma_alone": {"format": 2, "check": -1, "preset": 6, "filters": None},
    "lzma_raw_delta_lzma2": {"format": 3, "check": -1, "preset": None,
                             "filters": [{"id": 3, "dist": 4}, {"id": 33, "preset": 3}]},
    "lzma_xz_filters": {"format": 1, "check": 4, "preset": None,
                        "filters": [{"id": 33, "preset": 2, "dict_size": 65536}]},
}
for name, cfg in lzma_cases.items():
    case(name, {"name": "numcodecs.lzma", "configuration": cfg}, ints, numcodecs.LZMA(**cfg).encode(ints), True)
for cls, cfg, tag in [(numcodecs.CRC32, {}, "crc32"), (numcodecs.CRC32, {"location": "end"}, "crc32_end"),
                      (numcodecs.Adler32, {}, "adler32"), (numcodecs.Adler32, {"location": "end"}, "adler32_end"),
                      (numcodecs.CRC32C, {}, "crc32c"), (numcodecs.CRC32C, {"location": "start"}, "crc32c_start"),
                      (numcodecs.Fletcher32, {}, "fletcher32")]:
    case(f"checksum_{tag}", {"name": f"numcodecs.{cls.codec_id}", "configuration": cfg}, smooth,
         cls(**cfg).encode(smooth), True)
odd = np.frombuffer(text[:1001], "u1")  # an odd length: Fletcher-32's last half word
case("checksum_fletcher32_odd", {"name": "numcodecs.fletcher32", "configuration": {}}, odd,
     numcodecs.Fletcher32().encode(odd), True)

# More value filters.
bits = (np.sin(np.arange(300) / 7.0) > 0.3)
for n in [300, 296, 1]:
    b = bits[:n].copy()
    case(f"packbits_{n}", {"name": "numcodecs.packbits", "configuration": {}}, b,
         numcodecs.PackBits().encode(b), True)
for enc_dt, dec_dt, arr, tag in [("<i2", "<i8", (ints * 3).astype("<i8"), "i8_i2"),
                                 ("<f4", "<f8", smooth.astype("<f8") / 3, "f8_f4"),
                                 ("<u1", "<f4", smooth / 10, "f4_u1"),
                                 ("<f2", "<f4", smooth, "f4_f2")]:
    c = numcodecs.AsType(encode_dtype=enc_dt, decode_dtype=dec_dt)
    spec = {"name": "numcodecs.astype", "configuration": c.get_config() | {"id": None}}
    del spec["configuration"]["id"]
    enc = c.encode(arr)
    case(f"astype_{tag}_enc", spec, arr, enc, True)
    case(f"astype_{tag}_dec", spec, np.asarray(c.decode(enc)).reshape(arr.shape), enc, False)
for digits, dt, at, tag in [(1, "<f8", "<f8", "d1_f8"), (3, "<f4", "<f4", "d3_f4"), (2, "<f8", "<f4", "d2_f8_f4"),
                            (2, "<f2", "<f2", "d2_f2"), (-1, "<f8", "<f8", "dm1_f8")]:
    c = numcodecs.Quantize(digits=digits, dtype=dt, astype=at)
    arr = (smooth.astype(dt) / 997).astype(dt) if dt != "<f2" else (smooth / 997).astype(dt)
    spec = {"name": "numcodecs.quantize", "configuration": {"digits": digits, "dtype": dt, "astype": at}}
    enc = c.encode(arr)
    case(f"quantize_{tag}_enc", spec, arr, enc, True)
    case(f"quantize_{tag}_dec", spec, np.asarray(c.decode(enc)).reshape(arr.shape), enc, False)
for keep, dt in [(0, "<f4"), (3, "<f4"), (10, "<f8"), (22, "<f4"), (23, "<f4"), (5, "<f2"), (51, "<f8")]:
    arr = (smooth.astype(dt) * 1.0001).astype(dt)
    enc = np.asarray(numcodecs.BitRound(keepbits=keep).encode(arr)).view(dt)
    case(f"bitround_{keep}_{dt[1:]}", {"name": "numcodecs.bitround", "configuration": {"keepbits": keep}},
         arr, enc, True)
# Delta over bools: differences are not_equal, decoding sums in int and casts
# back to bool, so numcodecs reads True from the first True on.
bd = numcodecs.Delta(dtype="|b1")
enc = bd.encode(bits)
case("delta_b1_b1_enc", {"name": "numcodecs.delta", "configuration": {"dtype": "|b1", "astype": "|b1"}},
     bits, enc, True)
case("delta_b1_b1_dec", {"name": "numcodecs.delta", "configuration": {"dtype": "bool"}},
     np.asarray(bd.decode(enc)).reshape(bits.shape), enc, False)
# Filter dtypes spelled as NumPy names rather than type strings.
for dt, astype, arr, tag in [("int32", "int32", ints, "int32"), ("i8", "i2", (ints.astype("<i8") - ints[0]) * 10, "i8_i2"),
                             ("float64", "f4", smooth.astype("<f8") / 3, "float64_f4"), ("d", "float", smooth.astype("<f8"), "d")]:
    c = numcodecs.Delta(dtype=dt, astype=astype)
    case(f"delta_alias_{tag}", {"name": "numcodecs.delta", "configuration": {"dtype": dt, "astype": astype}},
         arr, c.encode(arr), True)

(OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
print(len(manifest), "fixtures,", sum(p.stat().st_size for p in OUT.iterdir()), "bytes")
