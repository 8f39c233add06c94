"""Reading Zarr over HTTP (src/store/http_store.cpp) from a real nginx started here,
serving a copy of the conformance corpus, and through a fault-injecting proxy in
front of it: every array reads as its local copy; faults are retried or end in a
clear error naming the URL, in bounded time, never with wrong data."""

from __future__ import annotations

import json
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

import zarrgpu
from _http_servers import FAULTS, FaultProxy, Nginx, assert_same_array, copy_corpus, require_nginx
from _zarrgpu_corpus import corpus_dir

CORPUS = corpus_dir()
pytestmark = pytest.mark.skipif(CORPUS is None, reason="conformance corpus not found (tests/corpus/data)")


def _corpus_entries() -> list[tuple[str, dict]]:
    if CORPUS is None:
        return []
    out = []
    for f in sorted(CORPUS.glob("expected_*.json")):
        out.extend(sorted(json.loads(f.read_text()).items()))
    return out


ENTRIES = _corpus_entries()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(nginx, docroot): nginx serving a copy of the corpus; tests may add stores to docroot."""
    nginx_bin = require_nginx()
    work = tmp_path_factory.mktemp("nginx")
    docroot = copy_corpus(CORPUS, work / "www")
    server = Nginx(docroot, work)
    server.start(nginx_bin)
    yield server, docroot
    server.stop()


@pytest.fixture
def fast_retries(monkeypatch):
    """Short timeouts and backoff (read when a store opens) so that fault tests end quickly."""
    monkeypatch.setenv("ZARRGPU_HTTP_TIMEOUT_MS", "1000")
    monkeypatch.setenv("ZARRGPU_HTTP_CONNECT_TIMEOUT_MS", "1000")
    monkeypatch.setenv("ZARRGPU_HTTP_BACKOFF_MS", "5")
    monkeypatch.setenv("ZARRGPU_HTTP_RETRIES", "4")


def _local(entry: dict) -> np.ndarray:
    return zarrgpu.open_array(str(CORPUS / entry["store"]), path=entry["array"])[...]


@pytest.mark.parametrize("name,entry", ENTRIES, ids=[n for n, _ in ENTRIES])
def test_every_corpus_array_reads_over_http_as_locally(served, name, entry):
    server, _ = served
    got = zarrgpu.open_array(f"{server.url}/{entry['store']}", path=entry["array"])[...]
    assert_same_array(got, _local(entry))


def test_sharded_partial_reads_use_ranges_of_one_version(served):
    """A selection inside a sharded array reads its shard index and inner chunks by range."""
    server, _ = served
    store = next(e for _, e in ENTRIES if "shard" in e["store"] and len(e["shape"]) == 2)
    remote = zarrgpu.open_array(f"{server.url}/{store['store']}", path=store["array"])
    local = zarrgpu.open_array(str(CORPUS / store["store"]), path=store["array"])
    assert_same_array(remote[3:40, 5:33], local[3:40, 5:33])


def test_open_member_of_consolidated_group_and_list_it(served):
    server, _ = served
    for store in ("v3_group_consolidated_s11.zarr", "v2_group_consolidated_s1.zarr"):
        remote = zarrgpu.open(f"{server.url}/{store}/")
        local = zarrgpu.open(str(CORPUS / store))
        assert sorted(remote.keys()) == sorted(local.keys())
        for name in local.keys():
            if isinstance(local[name], zarrgpu.Array):
                assert_same_array(remote[name][...], local[name][...])


def test_group_without_consolidated_metadata_says_http_cannot_list(served):
    server, _ = served
    group = zarrgpu.open(f"{server.url}/v3_group_plain_s11.zarr")
    with pytest.raises(zarrgpu.UnsupportedError, match="cannot list.*consolidated"):
        group.keys()


def test_missing_chunk_reads_as_fill_value(served, tmp_path):
    server, docroot = served
    path = docroot / "holes.zarr"
    a = zarrgpu.create_array(str(path), shape=(8, 8), chunks=(4, 4), dtype="i4", fill_value=-7)
    a[:4, :4] = np.arange(16, dtype="i4").reshape(4, 4)
    got = zarrgpu.open_array(f"{server.url}/holes.zarr")[...]
    want = np.full((8, 8), -7, dtype="i4")
    want[:4, :4] = np.arange(16).reshape(4, 4)
    np.testing.assert_array_equal(got, want)


def test_missing_store_is_not_found_naming_the_url_without_credentials(served):
    server, _ = served
    url = server.url.replace("http://", "http://alice:s3cret@") + "/no_such.zarr"
    with pytest.raises(zarrgpu.NotFoundError) as err:
        zarrgpu.open(url)
    assert "127.0.0.1" in str(err.value) and "no_such.zarr" in str(err.value)
    assert "s3cret" not in str(err.value) and "alice" not in str(err.value)


def test_http_store_is_read_only(served):
    server, _ = served
    entry = next(e for _, e in ENTRIES if e["array"] == "" and len(e["shape"]) == 1 and e["dtype"] == "<u4")
    a = zarrgpu.open(f"{server.url}/{entry['store']}", mode="r+")
    with pytest.raises(zarrgpu.ZarrgpuError, match="read-only"):
        a[0:1] = np.zeros(1, dtype="u4")


def test_cli_info_cat_convert_from_http(served, run_zarrgpu, tmp_path):
    server, _ = served
    url = f"{server.url}/v3_group_consolidated_s11.zarr"
    r = run_zarrgpu("info", url, "--json")
    assert r.returncode == 0, r.stderr
    local = json.loads(run_zarrgpu("info", CORPUS / "v3_group_consolidated_s11.zarr", "--json").stdout)
    remote = json.loads(r.stdout)
    assert [n["path"] for n in remote["nodes"]] == [n["path"] for n in local["nodes"]]
    assert remote["store"].startswith(server.url)
    # HTTP cannot list: stored sizes are unknown, not zero.
    assert all(n["stored_bytes"] is None for n in remote["nodes"] if n["node_type"] == "array")
    assert "cannot list its keys" in run_zarrgpu("info", url).stdout

    out = tmp_path / "data.npy"
    r = run_zarrgpu("cat", url, "--array", "data", "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(out), zarrgpu.open_array(str(CORPUS / "v3_group_consolidated_s11.zarr"),
                                                                   path="data")[...])

    converted = tmp_path / "copy.zarr"
    r = run_zarrgpu("convert", url, converted)
    assert r.returncode == 0, r.stderr
    assert_same_array(zarrgpu.open_array(str(converted), path="data")[...],
                 zarrgpu.open_array(str(CORPUS / "v3_group_consolidated_s11.zarr"), path="data")[...])


def test_cli_missing_remote_store_exits_not_found(served, run_zarrgpu):
    server, _ = served
    r = run_zarrgpu("info", f"{server.url}/no_such.zarr")
    assert r.returncode == 3, r.stderr
    assert f"{server.url}/no_such.zarr" in r.stderr


def test_xarray_backend_opens_http_url(served):
    xr = pytest.importorskip("xarray")
    server, _ = served
    store = "v2_group_consolidated_s1.zarr"
    with xr.open_dataset(f"{server.url}/{store}", engine="zarrgpu") as remote, \
            xr.open_dataset(str(CORPUS / store), engine="zarr") as local:
        xr.testing.assert_identical(remote.load(), local.load())


# ---- the read report -----------------------------------------------------------------------

def _counting_proxy(proxy_of) -> FaultProxy:
    return proxy_of(lambda ident, attempt: None)


def test_read_report_counts_the_requests_the_server_saw(served, proxy_of):
    """A sharded read's requests (the shard's HEAD and index, its inner chunks), each one
    seen by the server through a pass-through proxy that counts them."""
    server, docroot = served
    a = zarrgpu.create_array(str(docroot / "report_sharded.zarr"), shape=(32, 32), chunks=(8, 8), shards=(32, 32),
                             dtype="f4")
    want = np.arange(32 * 32, dtype="f4").reshape(32, 32)
    a[...] = want
    proxy = _counting_proxy(proxy_of)
    remote = zarrgpu.open_array(f"{proxy.url}/report_sharded.zarr")
    before = proxy.requests
    np.testing.assert_array_equal(remote[...], want)
    r = zarrgpu.last_read_report()
    assert r.store == "http"
    assert r.chunks == 16 and r.missing_chunks == 0
    assert r.requests == proxy.requests - before > 0
    assert r.retries == 0
    # Every byte the read used came over the wire; the shard's HEAD has no body.
    assert r.bytes_fetched >= r.bytes_read > 0


def test_a_compressed_chunk_is_one_request(served, proxy_of):
    """Not a HEAD for its size and then a GET: one GET of at most the size its codecs allow."""
    server, _ = served
    proxy = _counting_proxy(proxy_of)
    remote = zarrgpu.open_array(f"{proxy.url}/v3_zstd1_f4_s11.zarr")
    want = zarrgpu.open_array(str(CORPUS / "v3_zstd1_f4_s11.zarr"))[...]
    before = dict(proxy.seen)
    got = remote[...]
    r = zarrgpu.last_read_report()
    assert_same_array(got, want)
    sent = [k for k in proxy.seen if k not in before]
    assert len(sent) == r.requests == r.chunks
    assert all(k.startswith("GET ") for k in sent)


def test_an_oversized_chunk_is_refused_after_one_bounded_request(served, proxy_of):
    """A stored chunk far larger than its codecs can make is an error naming its size and key,
    and no more of it than the bound is asked for."""
    server, docroot = served
    path = docroot / "oversized.zarr"
    a = zarrgpu.create_array(str(path), shape=(4, 4), chunks=(4, 4), dtype="i4")
    a[...] = np.arange(16, dtype="i4").reshape(4, 4)
    (path / "c" / "0" / "0").write_bytes(b"\0" * (8 << 20))
    proxy = _counting_proxy(proxy_of)
    remote = zarrgpu.open_array(f"{proxy.url}/oversized.zarr")
    before = dict(proxy.seen)
    with pytest.raises(zarrgpu.CorruptDataError, match=f"stored chunk is {8 << 20} bytes") as err:
        remote[...]
    assert "c/0/0" in str(err.value)
    sent = [k for k in proxy.seen if k not in before]
    assert len(sent) == 1 and "Range: bytes=0-" in sent[0], sent
    asked = int(sent[0].rsplit("-", 1)[1]) + 1
    assert asked < (2 << 20), sent  # twice the codecs' bound and 1 MiB, far below the 8 MiB stored


def test_read_report_counts_a_retry_after_an_injected_fault(served, proxy_of, fast_retries):
    server, _ = served
    entry = next(e for _, e in ENTRIES if e["array"] == "" and e["store"].startswith("v3_zstd"))
    # The first sight of every chunk request answers 503; metadata passes.
    proxy = proxy_of(lambda ident, attempt: "503" if attempt == 0 and ".json" not in ident and "/." not in ident
                     else None)
    remote = zarrgpu.open_array(f"{proxy.url}/{entry['store']}")
    want = _local(entry)
    before = proxy.requests
    got = remote[...]
    r = zarrgpu.last_read_report()
    assert_same_array(got, want)
    assert r.store == "http"
    assert r.retries == proxy.faults["503"] > 0
    assert r.requests == proxy.requests - before == 2 * r.retries
    # The failed attempts' answers (the proxy's short error body, when curl read it
    # before the connection closed) were fetched but not used.
    assert r.missing_chunks == 0
    assert r.bytes_read <= r.bytes_fetched <= r.bytes_read + r.retries * len(b"injected failure")


def test_read_report_of_a_local_read_makes_no_requests():
    entry = next(e for _, e in ENTRIES if e["array"] == "" and e["store"].startswith("v3_zstd"))
    _local(entry)
    r = zarrgpu.last_read_report()
    assert r.store == "file" and r.requests == r.retries == r.bytes_fetched == 0


# ---- faults --------------------------------------------------------------------------------

def _flaky(ident: str, attempt: int):
    """Each request fails its first two attempts, with faults chosen by the request."""
    if attempt >= 2:
        return None
    h = zlib.crc32(ident.encode())
    kinds = FAULTS if attempt == 0 else tuple(f for f in FAULTS if f != "delay")
    return kinds[(h + attempt) % len(kinds)]


@pytest.fixture
def proxy_of(served):
    proxies = []

    def make(plan, delay: float = 2.0) -> FaultProxy:
        p = FaultProxy(served[0].port, plan, delay=delay)
        proxies.append(p)
        return p

    yield make
    for p in proxies:
        p.close()


def test_faults_are_retried_and_arrays_read_right(served, proxy_of, fast_retries, monkeypatch):
    # A delayed answer outlives the timeout: the retry must not mix the two answers.
    monkeypatch.setenv("ZARRGPU_HTTP_TIMEOUT_MS", "500")
    proxy = proxy_of(_flaky, delay=1.0)
    start = time.monotonic()
    # Every fourth array (each request meets two faults: the whole corpus takes minutes).
    for _, entry in ENTRIES[::4]:
        got = zarrgpu.open_array(f"{proxy.url}/{entry['store']}", path=entry["array"])[...]
        assert_same_array(got, _local(entry))
    assert all(proxy.faults[f] > 0 for f in FAULTS), proxy.faults
    assert time.monotonic() - start < 120


@pytest.mark.parametrize("fault,message", [("500", "HTTP 500"), ("503", "HTTP 503"),
                                           ("truncate", "truncated|transfer closed"),
                                           ("drop", "Empty reply|reset|closed|Recv failure"),
                                           ("delay", "[Tt]imed? ?out")])
def test_persistent_fault_fails_naming_the_url_in_bounded_time(served, proxy_of, fast_retries, monkeypatch,
                                                               fault, message):
    monkeypatch.setenv("ZARRGPU_HTTP_RETRIES", "2")
    monkeypatch.setenv("ZARRGPU_HTTP_TIMEOUT_MS", "300")
    entry = next(e for _, e in ENTRIES if e["array"] == "" and e["store"].startswith("v3_zstd"))
    # Metadata passes; every chunk request meets the fault.
    proxy = proxy_of(lambda ident, attempt: None if ".json" in ident or "/." in ident else fault, delay=3.0)
    a = zarrgpu.open_array(f"{proxy.url}/{entry['store']}")
    start = time.monotonic()
    with pytest.raises(zarrgpu.StorageError, match=message) as err:
        a[...]
    assert time.monotonic() - start < 10
    assert f"{proxy.url}/{entry['store']}/" in str(err.value)
    assert "after 3 attempts" in str(err.value)


# ---- the loader ----------------------------------------------------------------------------

def test_loader_reads_batches_over_http_as_from_the_local_store(served):
    torch = pytest.importorskip("torch")
    import warnings

    from _loader_store import make_store
    from zarrgpu.loader import Loader, LoaderDeviceWarning

    server, docroot = served
    make_store(docroot / "loader_era5.zarr", time_chunk=4, shards=8)
    args = dict(select={"level": [850, 500]}, history=2, horizon=1, stride=2, batch_size=4, device="cpu",
                shuffle=True, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LoaderDeviceWarning)
        remote = Loader(f"{server.url}/loader_era5.zarr", ["t2m", "z"], **args)
        local = Loader(str(docroot / "loader_era5.zarr"), ["t2m", "z"], **args)
        pairs = list(zip(remote, local, strict=True))
    assert remote.channel_names == local.channel_names
    assert len(pairs) == len(local) > 1
    for got, want in pairs:
        np.testing.assert_array_equal(got.steps, want.steps)
        assert torch.equal(got.data, want.data)
