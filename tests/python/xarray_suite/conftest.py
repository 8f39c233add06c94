"""Hooks for xarray's backend suite run through zarrgpu (test_xarray_backends.py):

- the `skip_if_param` and `skip_with_dask_array` marks xarray's own root conftest.py
  implements (it is not installed with xarray);
- each test counts the datasets engine="zarrgpu" opened; one that passes without any is
  reported as skipped, "not applicable", so the passes are the tests that read through zarrgpu;
- tests named in expected_failures.py are strict xfails with their reasons."""

from __future__ import annotations

import pytest

from expected_failures import EXPECTED_FAILURES

NOT_APPLICABLE = "not applicable: the test opened no data through engine='zarrgpu'"


def _zarrgpu_entrypoint():
    from zarrgpu.xarray_backend import ZarrgpuBackendEntrypoint

    return ZarrgpuBackendEntrypoint


def _strip_class(nodeid: str) -> str:
    """'test_x.py::TestZarrgpuDirectoryStore::test_y[zarr_format=2]' -> 'test_y[zarr_format=2]'."""
    return nodeid.split("::")[-1]


def pytest_configure(config):
    config.addinivalue_line("markers", "skip_if_param(**params, reason, condition=True): xarray's mark")
    config.addinivalue_line("markers", "skip_with_dask_array: xarray's mark")


def pytest_collection_modifyitems(config, items):
    unused = set(EXPECTED_FAILURES)
    for item in items:
        if "xarray_suite" not in str(item.path):
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        for mark in item.iter_markers("skip_if_param"):
            kwargs = dict(mark.kwargs)
            reason = kwargs.pop("reason", "")
            condition = kwargs.pop("condition", True)
            if condition and all(k in params and params[k] == v for k, v in kwargs.items()):
                item.add_marker(pytest.mark.skip(reason=reason))
        if item.get_closest_marker("skip_with_dask_array") and params.get("use_dask"):
            item.add_marker(pytest.mark.skip(reason="skipped with dask arrays (xarray's mark)"))
        name = _strip_class(item.nodeid)
        reason = EXPECTED_FAILURES.get(name) or EXPECTED_FAILURES.get(name.split("[")[0])
        if reason is not None:
            unused.discard(name)
            unused.discard(name.split("[")[0])
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
    config._zarrgpu_unused_expected_failures = unused


@pytest.fixture(autouse=True)
def _count_zarrgpu_opens(request, monkeypatch):
    """Counts open_dataset/open_datatree/open_groups_as_dict calls of engine="zarrgpu"."""
    if "xarray_suite" not in str(request.node.path):
        yield
        return
    entry = _zarrgpu_entrypoint()
    count = {"n": 0}
    for method in ("open_dataset", "open_datatree", "open_groups_as_dict"):
        original = getattr(entry, method)

        def counted(self, *args, _original=original, **kwargs):
            count["n"] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(entry, method, counted)
    request.node._zarrgpu_opens = count
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    count = getattr(item, "_zarrgpu_opens", None)
    if count is None or call.when != "call" or count["n"]:
        return
    if report.passed and not hasattr(report, "wasxfail"):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, NOT_APPLICABLE)
    elif hasattr(report, "wasxfail") and report.skipped:
        # An expected failure that failed before reaching zarrgpu: not a zarrgpu result either.
        pass


def pytest_terminal_summary(terminalreporter, config):
    unused = getattr(config, "_zarrgpu_unused_expected_failures", set())
    collected_suite = any("xarray_suite" in str(getattr(r, "fspath", "")) for r in terminalreporter.stats.get("passed", []))
    if unused and collected_suite and not config.option.keyword:
        terminalreporter.write_line(
            "xarray suite: expected_failures.py names tests that were not collected: " + ", ".join(sorted(unused)))
