"""Tests of xarray's backend suite that fail when reading through zarrgpu, each with its
reason. Keys: a test's name ("test_x", every parametrization) or a test's name with its
parameters ("test_x[2-int]"). They run as strict xfails: a test that starts passing fails the
run until its entry is removed, so this list stays current."""

EXPECTED_FAILURES: dict[str, str] = {
    # The backend's documented choice (xarray_backend.py's docstring): encoding["compressors"]
    # holds each codec's JSON dict, which zarr-python accepts on write; the test compares it
    # with numcodecs / zarr-python codec objects (Blosc, BloscCodec).
    "test_compressor_encoding": "encoding['compressors'] holds the codec's JSON dict, not a numcodecs / "
                                "zarr-python codec object",
    "test_load_async": (
        "the backend has no async_getitem for Dataset.load_async (xarray: 'Backend does not support "
        "asynchronous loading')"),
    # engine="zarr" ignores use_zarr_fill_value_as_mask=False: ZarrBackendEntrypoint.open_dataset
    # hands None to ZarrStore.open_group, so format 2 fill values always mask. zarrgpu honours
    # the argument, so the test's expected _FillValue attribute is absent.
    "test_zarr_fill_value_setting[2-float]": "zarrgpu honours use_zarr_fill_value_as_mask=False; engine='zarr' "
                                             "ignores it for format 2",
    "test_zarr_fill_value_setting[2-int]": "zarrgpu honours use_zarr_fill_value_as_mask=False; engine='zarr' "
                                           "ignores it for format 2",
}
