"""Tests of zarr-python's suite that fail with zarrgpu.zarr.CodecPipeline selected, each
with its reason. Keys: a test's path and name as pytest prints them relative to zarr-python's
tests/ ("test_codecs/test_zstd.py::test_zstd"), with or without the parameters in brackets.
They run as strict xfails: one that starts passing fails the run until its entry goes."""

EXPECTED_FAILURES: dict[str, str] = {}
