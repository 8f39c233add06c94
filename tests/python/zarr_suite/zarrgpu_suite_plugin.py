"""pytest plugin for zarr-python's own tests with zarrgpu.zarr.CodecPipeline selected
(run_zarr_suite.py loads it with -p):

- the pipeline is zarr-python's default for the session: its conftest resets the config
  before every test (an autouse fixture), so the default itself names zarrgpu.zarr.CodecPipeline;
- each test counts the batches zarrgpu decoded or encoded and the reads it served by path
  (arrays on a LocalStore); a test that passes without any
  (metadata, stores, strings and other types zarrgpu hands back to zarr-python) is reported
  as skipped, "not applicable", so the passes are the tests that ran through zarrgpu;
- tests named in expected_failures.py are strict xfails with their reasons."""

from __future__ import annotations

import pytest
import zarr

import zarrgpu.zarr
from zarrgpu.zarr import _pipeline

from expected_failures import EXPECTED_FAILURES

PIPELINE = {"codec_pipeline.path": "zarrgpu.zarr.CodecPipeline"}
NOT_APPLICABLE = "not applicable: no chunk went through zarrgpu.zarr.CodecPipeline"


def _key(item) -> str:
    """'.../tests/test_codecs/test_zstd.py::test_zstd[True]' -> 'test_codecs/test_zstd.py::test_zstd[True]'."""
    nodeid = item.nodeid
    return nodeid[len("tests/"):] if nodeid.startswith("tests/") else nodeid


def pytest_configure(config):
    for defaults in zarr.config.defaults:
        if "codec_pipeline" in defaults:
            defaults["codec_pipeline"] = {**defaults["codec_pipeline"], **{"path": PIPELINE["codec_pipeline.path"]}}
    zarr.config.reset()
    assert zarr.config.get("codec_pipeline.path") == PIPELINE["codec_pipeline.path"]


def pytest_collection_modifyitems(config, items):
    unused = set(EXPECTED_FAILURES)
    for item in items:
        key = _key(item)
        base = key.split("[")[0]
        reason = EXPECTED_FAILURES.get(key) or EXPECTED_FAILURES.get(base)
        if reason is not None:
            unused.discard(key)
            unused.discard(base)
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
    config._zarrgpu_unused_expected_failures = unused


@pytest.fixture(autouse=True)
def _zarrgpu_pipeline(request, monkeypatch):
    count = {"n": 0}
    for name in ("_decode_now", "_encode_now", "_read_by_path_now"):
        original = getattr(_pipeline.CodecPipeline, name)

        def counted(self, *args, _original=original):
            count["n"] += 1
            return _original(self, *args)

        monkeypatch.setattr(_pipeline.CodecPipeline, name, counted)
    request.node._zarrgpu_batches = count
    assert zarrgpu.zarr.CodecPipeline is _pipeline.CodecPipeline
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    count = getattr(item, "_zarrgpu_batches", None)
    if count is None or call.when != "call" or count["n"]:
        return
    if report.passed and not hasattr(report, "wasxfail"):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, NOT_APPLICABLE)


def pytest_terminal_summary(terminalreporter, config):
    unused = getattr(config, "_zarrgpu_unused_expected_failures", set())
    if unused and not config.option.keyword:
        terminalreporter.write_line(
            "zarr-python suite: expected_failures.py names tests that were not collected: " + ", ".join(sorted(unused)))
    routes = zarrgpu.zarr.read_routes()
    terminalreporter.write_line(f"zarrgpu.zarr reads: {routes.get('by_path', 0)} by path (LocalStore), "
                                f"{routes.get('through_store', 0)} through the store")
