"""Error messages say the real cause (issue 31, item 8): the unknown data type by name,
metadata documents named as documents (never as chunks), and the codec of a format 2
compressor or filter in the exception's ``.codec``."""

from __future__ import annotations

import json

import pytest

zarrgpu = pytest.importorskip("zarrgpu")
zarr = pytest.importorskip("zarr")


def edited_array(tmp_path, zarr_format: int, **changes):
    """An array written by zarr-python whose metadata document gets `changes`."""
    path = tmp_path / "a.zarr"
    zarr.create_array(path, shape=(4,), chunks=(2,), dtype="f4", zarr_format=zarr_format)
    doc = path / ("zarr.json" if zarr_format == 3 else ".zarray")
    meta = json.loads(doc.read_text())
    meta.update(changes)
    doc.write_text(json.dumps(meta))
    return path


def v3_array(tmp_path, **changes):
    return edited_array(tmp_path, 3, **changes)


def v2_array(tmp_path, **changes):
    return edited_array(tmp_path, 2, **changes)


def test_unknown_data_type_with_configuration_is_named(tmp_path):
    # zarr-python 3 writes extension data types as {"name", "configuration"}.
    path = v3_array(tmp_path, data_type={"name": "float8_e9m9", "configuration": {"endianness": "little"}})
    with pytest.raises(zarrgpu.UnsupportedError) as info:
        zarrgpu.open(path)
    assert 'unknown data type "float8_e9m9"' in str(info.value)
    assert "takes no configuration" not in str(info.value)
    assert info.value.document == "zarr.json" and info.value.chunk_key == ""


def test_configuration_on_a_known_type_still_says_so(tmp_path):
    path = v3_array(tmp_path, data_type={"name": "float32", "configuration": {"x": 1}})
    with pytest.raises(zarrgpu.UnsupportedError, match='"float32" takes no configuration'):
        zarrgpu.open(path)


def test_invalid_json_names_the_document_not_a_chunk(tmp_path):
    path = v3_array(tmp_path)
    (path / "zarr.json").write_text('{"zarr_format": 3,')
    with pytest.raises(zarrgpu.InvalidMetadataError) as info:
        zarrgpu.open(path)
    e = info.value
    assert e.document == "zarr.json" and e.chunk_key == ""
    assert "document 'zarr.json'" in str(e) and "chunk" not in str(e)


@pytest.mark.parametrize("compressor,cause", [
    ({"id": "no_such_codec"}, 'unsupported compressor "no_such_codec"'),
    ({"id": "zstd", "level": "high"}, "compressor.level"),
    ({"id": "blosc", "cname": "nope"}, "unknown blosc compressor"),
])
def test_v2_compressor_errors_name_the_codec(tmp_path, compressor, cause):
    path = v2_array(tmp_path, compressor=compressor)
    with pytest.raises(zarrgpu.ZarrgpuError) as info:
        zarrgpu.open(path)
    e = info.value
    assert cause in str(e)
    assert e.codec == compressor["id"] and e.array == "" and e.document == ".zarray"
    assert f"codec '{compressor['id']}'" in str(e)


@pytest.mark.parametrize("filters,codec", [
    ([{"id": "no_such_filter"}], "no_such_filter"),
    ([{"id": "delta", "dtype": "<f4", "astype": "<q9"}], "delta"),
    ([{"id": "shuffle", "elementsize": 4}, {"id": "delta", "dtype": "<f4"}], "delta"),
])
def test_v2_filter_errors_name_the_codec(tmp_path, filters, codec):
    path = v2_array(tmp_path, filters=filters)
    with pytest.raises(zarrgpu.ZarrgpuError) as info:
        zarrgpu.open(path)
    assert info.value.codec == codec, str(info.value)
