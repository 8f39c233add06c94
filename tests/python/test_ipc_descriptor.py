"""IPC descriptors (docs/ipc.md): host memory shared zero-copy with another
process, slices as base allocation + offset, the JSON Schema agreeing with the
importers, and malformed, forged or oversized descriptors refused cleanly."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import zarrgpu
from zarrgpu import ipc

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "ipc-descriptor.schema.json").read_text())
UUID = "GPU-0123abcd-0123-4567-89ab-0123456789ab"


def schema_accepts(desc: dict) -> bool:
    return jsonschema.Draft202012Validator(SCHEMA).is_valid(desc)


def device_descriptor() -> dict:
    d = json.loads(ipc.empty((4, 5), "float32").descriptor)
    d.update(memory="device", device={"type": "cuda", "index": 0, "uuid": UUID},
             handle={"kind": "cuda_ipc", "value": "ab" * 64}, event="00" * 64)
    return d


def run_child(code: str, fd: int, desc: str) -> subprocess.CompletedProcess:
    """Runs `code` in a new Python with `fd` inherited and DESC, FD defined."""
    prog = f"import json, numpy as np\nfrom zarrgpu import ipc\nDESC = {desc!r}\nFD = {fd}\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", prog], pass_fds=(fd,), capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "uint64", "float16", "float32", "float64", "complex64", "complex128"])
def test_descriptor_states_the_type_and_passes_the_schema(dtype):
    a = ipc.empty((3, 4), dtype)
    d = json.loads(a.descriptor)
    assert d["zarrgpu_ipc"] == ipc.DESCRIPTOR_VERSION == 1
    assert np.dtype(d["typestr"]) == np.dtype(dtype)
    assert d["strides"] == list(np.empty((3, 4), dtype).strides)
    assert d["memory"] == "host" and d["handle"] == {"kind": "memfd"}
    assert schema_accepts(d)
    assert np.asarray(a).dtype == np.dtype(dtype) and not np.asarray(a).any()


def test_bfloat16_round_trips_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = ipc.empty((2, 3), "bfloat16")
    assert json.loads(a.descriptor)["typestr"] == "bfloat16"
    np.asarray(a)[...] = np.array([[1.5, 2, 3], [4, 5, 6]], dtype=ml_dtypes.bfloat16)
    b = ipc.open(*ipc.export(a))
    assert np.asarray(b).dtype == ml_dtypes.bfloat16
    assert np.asarray(b)[0, 0] == 1.5


def test_another_process_reads_and_writes_the_same_memory():
    a = ipc.empty((4, 5), "float32")
    host = np.asarray(a)
    host[...] = np.arange(20, dtype=np.float32).reshape(4, 5)
    desc, fd = ipc.export(a)
    r = run_child("""
        b = ipc.open(DESC, FD)
        v = np.asarray(b)
        assert v.tolist() == np.arange(20, dtype=np.float32).reshape(4, 5).tolist(), v
        v[2, 3] = -7
        print("ok")
    """, fd, desc)
    assert r.returncode == 0, r.stderr
    assert host[2, 3] == -7  # written by the child, seen here without a copy


def test_slices_export_the_base_allocation_with_offset_and_strides():
    a = ipc.empty((4, 6), "int32")
    full = np.asarray(a)
    full[...] = np.arange(24, dtype=np.int32).reshape(4, 6)
    for key in [np.s_[1:3], np.s_[:, 2], np.s_[1:, ::2], np.s_[::-1, 1:5:3], np.s_[3], np.s_[2, 4]]:
        view = a[key]
        d = json.loads(view.descriptor)
        assert d["allocation_size"] == 96
        assert schema_accepts(d)
        desc, fd = ipc.export(view)
        r = run_child(f"""
            v = np.asarray(ipc.open(DESC, FD))
            want = np.arange(24, dtype=np.int32).reshape(4, 6)[{key!r}]
            assert v.shape == want.shape and (v == want).all(), (v, want)
        """, fd, desc)
        assert r.returncode == 0, (key, r.stderr)
        assert (np.asarray(view) == full[key]).all()


def test_read_only_memory_stays_read_only():
    import os

    a = ipc.empty((8,), "uint8")
    ro_fd = a._memory.reopen_read_only()
    try:
        b = ipc.open(a.descriptor, ro_fd)
        v = np.asarray(b)
        assert not v.flags.writeable
        with pytest.raises(ValueError):
            v[0] = 1
        d = json.loads(a.descriptor)
        d["read_only"] = True
        assert not np.asarray(ipc.open(d, a.fd)).flags.writeable  # read_only asked by the exporter
    finally:
        os.close(ro_fd)


def malformed_cases():
    base = json.loads(ipc.empty((4, 5), "float32").descriptor)

    def edit(f):
        d = json.loads(json.dumps(base))
        f(d)
        return d

    return {
        "missing shape": edit(lambda d: d.pop("shape")),
        "unknown member": edit(lambda d: d.update(pointer=1234)),
        "string type": edit(lambda d: d.update(data_type="string")),
        "typestr mismatch": edit(lambda d: d.update(typestr="<f8")),
        "dlpack mismatch": edit(lambda d: d.update(dlpack_dtype={"code": 2, "bits": 64, "lanes": 1})),
        "negative extent": edit(lambda d: d["shape"].__setitem__(0, -1)),
        "float extent": edit(lambda d: d["shape"].__setitem__(0, 4.5)),
        "host with cuda handle": edit(lambda d: d.update(handle={"kind": "cuda_ipc", "value": "ab" * 64})),
        "memfd with value": edit(lambda d: d.update(handle={"kind": "memfd", "value": "ab" * 64})),
        "bad device type": edit(lambda d: d["device"].update(type="rocm")),
        "host uuid": edit(lambda d: d["device"].update(uuid=UUID)),
        "rank 65": edit(lambda d: d.update(shape=[1] * 65, strides=[4] * 65)),
        "read_only not bool": edit(lambda d: d.update(read_only=1)),
        "host event": edit(lambda d: d.update(event="00" * 64)),
    }


@pytest.mark.parametrize("name", list(malformed_cases()))
def test_schema_and_importer_both_refuse(name):
    d = malformed_cases()[name]
    assert not schema_accepts(d)
    with pytest.raises(zarrgpu.InvalidArgumentError):
        ipc.validate(d)


@pytest.mark.parametrize("edit", [
    lambda d: d.update(byte_offset=4),                       # the view runs past the end
    lambda d: d.update(shape=[5, 5]),                        # oversized
    lambda d: d.update(strides=[20, 3]),                     # not a multiple of the element size
    lambda d: d.update(strides=[20, -4]),                    # reaches before the start
])
def test_importer_checks_beyond_the_schema(edit):
    d = json.loads(ipc.empty((4, 5), "float32").descriptor)
    edit(d)
    assert schema_accepts(d)  # a schema cannot relate members; the importer does
    with pytest.raises(zarrgpu.InvalidArgumentError):
        ipc.validate(d)


def test_device_descriptor_shape_passes_the_schema():
    d = device_descriptor()
    assert schema_accepts(d)
    assert ipc.validate(d)["handle"]["value"] == "ab" * 64
    d["handle"] = {"kind": "memfd"}
    assert not schema_accepts(d)
    with pytest.raises(zarrgpu.InvalidArgumentError):
        ipc.validate(d)


def test_other_versions_and_garbage():
    d = json.loads(ipc.empty((2,), "float32").descriptor)
    d["zarrgpu_ipc"] = 2
    with pytest.raises(zarrgpu.UnsupportedError):
        ipc.validate(d)
    assert not schema_accepts(d)
    for text in ["", "{", "[]", "null", "x" * 70000, b"\xff\xfe"]:
        with pytest.raises(zarrgpu.InvalidArgumentError):
            ipc.validate(text)


def test_forged_and_mismatched_file_descriptors():
    import os

    a = ipc.empty((16,), "uint8")
    r, w = os.pipe()
    try:
        with pytest.raises(zarrgpu.InvalidArgumentError, match="not a memfd"):
            ipc.open(a.descriptor, r)
    finally:
        os.close(r)
        os.close(w)
    with pytest.raises(zarrgpu.InvalidArgumentError, match="file descriptor"):
        ipc.open(a.descriptor)  # no fd at all
    other = ipc.empty((8,), "uint8")
    with pytest.raises(zarrgpu.InvalidArgumentError, match="allocation_size"):
        ipc.open(a.descriptor, other.fd)  # another memfd, of another size


def test_device_exports_without_cuda_are_device_errors():
    if zarrgpu.cuda_available():
        pytest.skip("a GPU is present (tests/python/test_ipc_gpu.py)")
    with pytest.raises(zarrgpu.DeviceError):
        ipc.empty((4,), "float32", device="cuda")
    with pytest.raises(zarrgpu.DeviceError):
        ipc.open(device_descriptor())
