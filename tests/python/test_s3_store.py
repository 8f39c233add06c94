"""Reading Zarr from S3-compatible storage (src/store/s3_store.cpp), and from gs:// (GCS's
XML API speaks S3's protocol), served by moto's standalone server started here, with every
request's SigV4 signature checked:
every corpus array reads as its local copy; listing without consolidated metadata
goes through ListObjectsV2; credentials come from storage_options, the environment
or the shared files; a wrong secret is a clear permission error that does not
quote it."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrgpu
from _http_servers import assert_same_array
from _s3_server import BUCKET, MotoServer, require_moto
from _zarrgpu_corpus import corpus_dir

CORPUS = corpus_dir()
PREFIX = "data"
pytestmark = pytest.mark.skipif(CORPUS is None, reason="conformance corpus not found (tests/corpus/data)")
ROOT = f"s3://{BUCKET}/{PREFIX}"


def _entries() -> list[tuple[str, dict]]:
    out = []
    for f in sorted(CORPUS.glob("expected_*.json")) if CORPUS else []:
        out.extend(sorted(json.loads(f.read_text()).items()))
    return out


ENTRIES = _entries()


@pytest.fixture(scope="module")
def moto(tmp_path_factory):
    require_moto()
    server = MotoServer(tmp_path_factory.mktemp("moto"))
    server.start()
    try:
        server.fill(CORPUS, PREFIX)
        yield server
    finally:
        server.stop()


@pytest.fixture
def aws_env(moto, monkeypatch, tmp_path):
    """The moto endpoint and the reader's key in the environment; no shared files."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto.url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", moto.key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", moto.secret)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("ZARRGPU_HTTP_RETRIES", "1")
    return moto


@pytest.mark.parametrize("name,entry", ENTRIES, ids=[n for n, _ in ENTRIES])
def test_every_corpus_array_reads_from_s3_as_locally(aws_env, name, entry):
    got = zarrgpu.open_array(f"{ROOT}/{entry['store']}", path=entry["array"])[...]
    assert_same_array(got, zarrgpu.open_array(str(CORPUS / entry["store"]), path=entry["array"])[...])


def test_group_without_consolidated_metadata_lists_with_list_objects(aws_env):
    store = "v3_group_plain_s11.zarr"
    remote = zarrgpu.open(f"{ROOT}/{store}", consolidated=False)
    local = zarrgpu.open(str(CORPUS / store), consolidated=False)
    assert sorted(remote.keys()) == sorted(local.keys())


def test_storage_options_give_key_and_endpoint(moto, monkeypatch, tmp_path):
    for k in ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    url = f"{ROOT}/v3_group_consolidated_s11.zarr"
    g = zarrgpu.open(url, storage_options={"endpoint_url": moto.url, "key": moto.key, "secret": moto.secret,
                                           "region": "us-east-1"})
    assert_same_array(g["data"][...], zarrgpu.open_array(str(CORPUS / "v3_group_consolidated_s11.zarr"), path="data")[...])


def test_credentials_from_a_profile_in_the_shared_files(aws_env, monkeypatch, tmp_path):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    creds = tmp_path / "credentials"
    creds.write_text(f"[default]\naws_access_key_id = WRONG\naws_secret_access_key = WRONG\n\n"
                     f"[reader]\naws_access_key_id = {aws_env.key}\naws_secret_access_key = {aws_env.secret}\n")
    config = tmp_path / "config"
    config.write_text("[profile reader]\nregion = us-east-1\n")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(creds))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_PROFILE", "reader")
    a = zarrgpu.open_array(f"{ROOT}/v3_zstd1_f4_s11.zarr")
    assert_same_array(a[...], zarrgpu.open_array(str(CORPUS / "v3_zstd1_f4_s11.zarr"))[...])
    monkeypatch.setenv("AWS_PROFILE", "nobody")
    with pytest.raises(zarrgpu.InvalidArgumentError, match="profile 'nobody'"):
        zarrgpu.open_array(f"{ROOT}/v3_zstd1_f4_s11.zarr")


def test_wrong_secret_is_a_permission_error_that_does_not_quote_it(aws_env, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-0123456789")
    with pytest.raises(zarrgpu.StorageError, match="403.*permission denied") as err:
        zarrgpu.open_array(f"{ROOT}/v3_zstd1_f4_s11.zarr")
    assert "not-the-secret" not in str(err.value)
    assert f"{ROOT}/v3_zstd1_f4_s11.zarr" in str(err.value)


def test_anonymous_requests_are_unsigned(aws_env):
    # moto, with authentication on, refuses unsigned requests: proof that none was signed.
    with pytest.raises(zarrgpu.StorageError, match="403"):
        zarrgpu.open_array(f"{ROOT}/v3_zstd1_f4_s11.zarr", storage_options={"anon": True})


def test_cli_info_and_convert_from_s3(aws_env, run_zarrgpu, tmp_path):
    url = f"{ROOT}/v3_group_plain_s11.zarr"
    r = run_zarrgpu("info", url, "--json")
    assert r.returncode == 0, r.stderr
    nodes = json.loads(r.stdout)["nodes"]
    local = json.loads(run_zarrgpu("info", CORPUS / "v3_group_plain_s11.zarr", "--json").stdout)["nodes"]
    assert [(n["path"], n.get("stored_bytes")) for n in nodes] == [(n["path"], n.get("stored_bytes")) for n in local]
    out = tmp_path / "copy.zarr"
    r = run_zarrgpu("convert", url, out)
    assert r.returncode == 0, r.stderr
    for name in zarrgpu.open(str(CORPUS / "v3_group_plain_s11.zarr")).keys():
        assert_same_array(zarrgpu.open_array(str(out), path=name)[...],
              zarrgpu.open_array(str(CORPUS / "v3_group_plain_s11.zarr"), path=name)[...])


def test_read_report_names_s3_and_counts_its_requests(aws_env):
    # Not sharded, with missing chunks: one GET per chunk, a missing one too (404). A store
    # no other test gives storage_options for (they are kept for the process).
    store = "v3_holes_int_s11.zarr"
    a = zarrgpu.open_array(f"{ROOT}/{store}")
    got = a[...]
    r = zarrgpu.last_read_report()
    assert_same_array(got, zarrgpu.open_array(str(CORPUS / store))[...])
    assert r.store == "s3"
    assert r.requests == r.chunks > r.missing_chunks > 0
    assert r.retries == 0
    assert r.bytes_fetched >= r.bytes_read > 0


def _upload(server, local, prefix: str) -> None:
    import boto3

    s3 = boto3.client("s3", endpoint_url=server.url, region_name="us-east-1", aws_access_key_id=server.key,
                      aws_secret_access_key=server.secret)
    for f in sorted(local.rglob("*")):
        if f.is_file():
            s3.put_object(Bucket=BUCKET, Key=f"{prefix}/{f.relative_to(local).as_posix()}", Body=f.read_bytes())


def test_loader_reads_batches_from_s3_with_storage_options(moto, monkeypatch, tmp_path):
    torch = pytest.importorskip("torch")
    import warnings

    from _loader_store import make_store
    from zarrgpu.loader import Loader, LoaderDeviceWarning

    for k in ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    local_path = tmp_path / "era5.zarr"
    make_store(local_path, time_chunk=1)
    _upload(moto, local_path, "loader/era5.zarr")
    options = {"endpoint_url": moto.url, "key": moto.key, "secret": moto.secret, "region": "us-east-1"}
    args = dict(select={"level": [850]}, history=1, horizon=1, batch_size=3, device="cpu", shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LoaderDeviceWarning)
        remote = Loader(f"s3://{BUCKET}/loader/era5.zarr", ["t2m", "z"], storage_options=options, **args)
        local = Loader(str(local_path), ["t2m", "z"], **args)
        pairs = list(zip(remote, local, strict=True))
    assert len(pairs) == len(local) > 1
    for got, want in pairs:
        assert torch.equal(got.data, want.data)
    group = zarrgpu.open_group(str(local_path))
    with pytest.raises(zarrgpu.InvalidArgumentError, match="storage_options apply to a store URL"):
        Loader(group, ["t2m"], storage_options=options, **args)


# ---- gs:// (Google Cloud Storage's XML API speaks S3's protocol: moto stands in for it) ------

def _gcs_env(monkeypatch, tmp_path):
    """AWS credentials in the environment that gs:// must not use."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIA-NOT-FOR-GCS")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-for-gcs")
    monkeypatch.delenv("STORAGE_EMULATOR_HOST", raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))


@pytest.mark.parametrize("name,entry", ENTRIES[::3], ids=[n for n, _ in ENTRIES[::3]])
def test_corpus_arrays_read_from_gs_with_an_hmac_key(moto, monkeypatch, tmp_path, name, entry):
    _gcs_env(monkeypatch, tmp_path)
    options = {"endpoint_url": moto.url, "key": moto.key, "secret": moto.secret}
    a = zarrgpu.open_array(f"gs://{BUCKET}/{PREFIX}/{entry['store']}", path=entry["array"], storage_options=options)
    got = a[...]
    r = zarrgpu.last_read_report()
    assert_same_array(got, zarrgpu.open_array(str(CORPUS / entry["store"]), path=entry["array"])[...])
    if r.chunks:
        assert r.store == "gs" and r.requests > 0


def test_gs_lists_with_list_objects_and_finds_the_emulator_host(moto, monkeypatch, tmp_path):
    _gcs_env(monkeypatch, tmp_path)
    # As Google's client libraries take it: host:port, no scheme.
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", moto.url.removeprefix("http://"))
    store = "v3_group_plain_s11.zarr"
    remote = zarrgpu.open(f"gs://{BUCKET}/{PREFIX}/{store}", consolidated=False,
                          storage_options={"key": moto.key, "secret": moto.secret})
    local = zarrgpu.open(str(CORPUS / store), consolidated=False)
    assert sorted(remote.keys()) == sorted(local.keys())


def test_gs_without_a_key_is_anonymous_and_never_uses_aws_credentials(moto, monkeypatch, tmp_path, run_zarrgpu):
    _gcs_env(monkeypatch, tmp_path)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", moto.key)  # valid for moto, yet not GCS credentials
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", moto.secret)
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", moto.url)
    # The bucket's root: a store URL no other test gives storage_options for (they are kept
    # for the process and for the URLs below).
    url = f"gs://{BUCKET}"
    # moto refuses unsigned requests: proof that none was signed.
    with pytest.raises(zarrgpu.StorageError, match="403.*permission denied") as err:
        zarrgpu.open_array(url, path=f"{PREFIX}/v3_zstd1_f4_s11.zarr")
    assert url in str(err.value) and moto.secret not in str(err.value)
    r = run_zarrgpu("info", url, "--array", f"{PREFIX}/v3_zstd1_f4_s11.zarr")
    assert r.returncode != 0 and url in r.stderr and "403" in r.stderr, r.stderr


def test_gs_storage_options_are_checked(moto, monkeypatch, tmp_path):
    _gcs_env(monkeypatch, tmp_path)
    with pytest.raises(zarrgpu.InvalidArgumentError, match="unknown GCS storage option 'profile'"):
        zarrgpu.open_array(f"gs://{BUCKET}/checks/a.zarr", storage_options={"endpoint_url": moto.url, "profile": "x"})
    with pytest.raises(zarrgpu.InvalidArgumentError, match="both its access id"):
        zarrgpu.open_array(f"gs://{BUCKET}/checks/b.zarr", storage_options={"endpoint_url": moto.url, "key": moto.key})
    with pytest.raises(zarrgpu.UnsupportedError, match="read-only"):
        zarrgpu.create_array(f"gs://{BUCKET}/checks/c.zarr", shape=(2,), dtype="i4")
