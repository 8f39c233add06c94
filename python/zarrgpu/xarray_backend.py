"""The Xarray backend: ``xr.open_dataset(store, engine="zarrgpu", device="cuda")``.

It mirrors xarray's own zarr engine (xarray/backends/zarr.py) so a dataset opened
with ``device="cpu"`` is identical to ``engine="zarr"``: the same dimension names
(v3 ``dimension_names``, v2 ``_ARRAY_DIMENSIONS`` hidden from attrs), the same
fill-value rule (format 2: the array's fill_value becomes ``_FillValue`` and masks;
format 3: it goes to ``encoding["fill_value"]``), and CF decoding by xarray's own
``StoreBackendEntrypoint``. Differences, on purpose:

- ``device="cuda"``: data variables load as CuPy arrays in GPU memory. Dimension
  coordinates, CF time variables (``units: "... since ..."``) and arrays that are not
  numbers (strings, bytes, datetime64/timedelta64) are always read to the host,
  because pandas indexes, time decoding and strings need NumPy.
- ``encoding["compressors"]``, ``["filters"]`` and ``["serializer"]`` are the codec
  dicts (v3 ``{"name", "configuration"}``, v2 numcodecs ``{"id", ...}``) rather than
  zarr-python codec objects; zarr-python accepts these dicts when writing.
- ``drop_variables`` are never opened: a member zarrgpu cannot read (unsupported data
  type or codec, broken metadata) can be dropped and the rest opens. Without it, such a
  member raises its own error (xarray's engine opens every array first).
- Consolidated metadata (v2 ``.zmetadata``, v3 inline) is used when present
  (``consolidated=None``); ``consolidated=True`` requires it, ``consolidated=False``
  reads every member's own metadata (a store another writer changed without
  reconsolidating).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from typing import Any

import numpy as np
from xarray.backends.common import AbstractDataStore, BackendArray, BackendEntrypoint
from xarray.backends.store import StoreBackendEntrypoint
from xarray.core import indexing
from xarray.core.utils import FrozenDict, close_on_error
from xarray.core.variable import Variable

from . import _zarrgpu
from ._device import parse_device
from ._dtypes import is_numeric
from .array import Array
from .errors import InvalidArgumentError
from .group import Group
from .storage_options import apply_storage_options

DIMENSION_KEY = "_ARRAY_DIMENSIONS"
_ZARR_MARKERS = ("zarr.json", ".zgroup", ".zarray", ".zmetadata")


def _to_cupy(value: Any) -> Any:
    import cupy

    return cupy.from_dlpack(value)


class ZarrgpuBackendArray(BackendArray):
    """Lazy access to one array; xarray's indexing adapter reduces outer and
    vectorized keys to a basic read plus NumPy/CuPy indexing of its result."""

    __slots__ = ("_array", "_device", "dtype", "shape")

    def __init__(self, array: Array, device: str):
        self._array = array
        self._device = parse_device(device)
        self.shape = array.shape
        self.dtype = array.dtype

    def get_array(self) -> Array:
        return self._array

    def __getitem__(self, key: indexing.ExplicitIndexer):
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.BASIC, self._getitem)

    def _getitem(self, key: tuple):
        if self._device.kind == "cpu":
            return self._array.read(key)
        return _to_cupy(self._array.read(key, device=self._device))


def _dims_and_attrs(array: Array, zarr_format: int) -> tuple[tuple, dict]:
    # As xarray's _get_zarr_dims_and_attrs: format 3 takes dimension_names (attributes
    # untouched), format 2 the _ARRAY_DIMENSIONS attribute (hidden, with _nc* attributes).
    attrs = array.attrs
    if zarr_format == 3:
        dims = array.dimension_names or ()
        if len(array.shape) != len(dims):
            raise KeyError(
                "Zarr object is missing the `dimension_names` metadata which is "
                "required for xarray to determine variable dimensions."
            )
        return tuple(dims), attrs
    if DIMENSION_KEY not in attrs:
        raise KeyError(
            f"Zarr object is missing the attribute `{DIMENSION_KEY}`, which is "
            "required for xarray to determine variable dimensions."
        )
    dims = tuple(attrs[DIMENSION_KEY])
    hidden = {k: v for k, v in attrs.items() if k != DIMENSION_KEY and not k.lower().startswith("_nc")}
    return dims, hidden


# The array -> bytes codecs of Zarr v3 and zarr-python 3 (the string and bytes types' vlen codecs).
_SERIALIZERS = ("bytes", "sharding_indexed", "vlen-utf8", "vlen-bytes")


def _codec_encoding(array: Array) -> dict:
    if array.zarr_format == 2:
        compressor = array.compressor
        filters = array.filters
        return {
            "compressors": (compressor,) if compressor is not None else (),
            "filters": tuple(filters) if filters else (),
        }
    chain = array.codecs
    serializer_at = next((i for i, c in enumerate(chain) if c["name"] in _SERIALIZERS), 0)
    return {
        "filters": tuple(chain[:serializer_at]),
        "serializer": chain[serializer_at] if chain else None,
        "compressors": tuple(chain[serializer_at + 1 :]),
    }


def _is_cf_time(attrs: dict) -> bool:
    units = attrs.get("units")
    return isinstance(units, str) and " since " in units


class ZarrgpuDataStore(AbstractDataStore):
    """A zarrgpu group as xarray's AbstractDataStore (read-only)."""

    def __init__(self, group: Group, device: str = "cpu", use_zarr_fill_value_as_mask: bool | None = None,
                 drop_variables: Iterable[str] = ()):
        self.group = group
        self.device = parse_device(device)
        if use_zarr_fill_value_as_mask is None:
            # xarray's default: format 2 data historically meant fill_value as _FillValue.
            use_zarr_fill_value_as_mask = group.zarr_format == 2
        self._use_zarr_fill_value_as_mask = use_zarr_fill_value_as_mask
        # Dropped variables are never opened, so an unreadable one (unsupported data type
        # or codec, broken metadata) does not stop the rest; any other unreadable member
        # that may be an array raises its own error when the dataset reads it.
        dropped = set(drop_variables)
        self._array_names = sorted(
            n for n, kind in group.member_kinds().items() if kind in ("array", None) and n not in dropped
        )
        self._arrays: dict[str, Array] = {}

    @classmethod
    def open(cls, url: str, group: str | None = None, consolidated: bool | None = None, device: str = "cpu",
             use_zarr_fill_value_as_mask: bool | None = None,
             drop_variables: Iterable[str] = ()) -> "ZarrgpuDataStore":
        path = (group or "").strip("/")
        node = _zarrgpu.open_node(url, path)
        if node["node_type"] != "group":
            raise InvalidArgumentError(
                f"{url}{'/' + path if path else ''} is a single Zarr array, not a group: xarray datasets are groups. "
                "Open it with zarrgpu.open() instead."
            )
        # consolidated: None uses consolidated metadata when present, False reads each
        # member's own metadata, True requires it (InvalidArgumentError, a ValueError, without), as zarr-python.
        g = Group(_zarrgpu.Group.open(url, path, consolidated), url, "r", consolidated)
        return cls(g, device, use_zarr_fill_value_as_mask, drop_variables)

    def _array(self, name: str) -> Array:
        if name not in self._arrays:
            self._arrays[name] = self.group[name]
        return self._arrays[name]

    def open_store_variable(self, name: str) -> Variable:
        array = self._array(name)
        zarr_format = self.group.zarr_format
        dims, attributes = _dims_and_attrs(array, zarr_format)
        attributes = dict(attributes)

        host = (self.device.kind == "cpu" or (len(dims) == 1 and dims[0] == name) or _is_cf_time(attributes)
                or not is_numeric(array.zarr_dtype))
        wrapper = ZarrgpuBackendArray(array, "cpu" if host else str(self.device))
        data = indexing.LazilyIndexedArray(wrapper)

        chunks = tuple(int(c) for c in array.chunks)
        encoding: dict[str, Any] = {
            "chunks": chunks,
            "preferred_chunks": dict(zip(dims, chunks, strict=True)),
            "shards": array.shards,
        }
        if array.dtype.kind == "T":  # as xarray's zarr backend: keep NumPy's StringDType on a round trip
            encoding["dtype"] = array.dtype
        encoding.update(_codec_encoding(array))
        if zarr_format != 3:
            encoding.pop("serializer", None)

        if self._use_zarr_fill_value_as_mask:
            if array.fill_value is not None:
                attributes["_FillValue"] = array.fill_value
        else:
            if zarr_format == 3:
                encoding["fill_value"] = array.fill_value
            if "_FillValue" in attributes:
                from xarray.backends.zarr import FillValueCoder

                attributes["_FillValue"] = FillValueCoder.decode(attributes["_FillValue"], array.dtype)
        return Variable(dims, data, attributes, encoding)

    def get_variables(self):
        return FrozenDict((name, self.open_store_variable(name)) for name in self._array_names)

    def get_attrs(self):
        return {k: v for k, v in self.group.attrs.items() if not k.lower().startswith("_nc")}

    def get_dimensions(self):
        dimensions: dict[str, int] = {}
        for name in self._array_names:
            array = self._array(name)
            dims, _ = _dims_and_attrs(array, self.group.zarr_format)
            for d, s in zip(dims, array.shape, strict=True):
                if d in dimensions and dimensions[d] != s:
                    raise ValueError(f"found conflicting lengths for dimension {d} ({s} != {dimensions[d]})")
                dimensions[d] = s
        return dimensions

    def close(self):
        self._arrays.clear()


def _array_module(data: Any):
    """NumPy, CuPy (whose arrays have no __array_namespace__), or the array API namespace."""
    if type(data).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return data.__array_namespace__() if hasattr(data, "__array_namespace__") else np


def _apply_mask_any_array(data, encoded_fill_values, decoded_fill_value, dtype):
    """xarray's CF mask (coding.variables._apply_mask) for any array module.

    xarray's own version converts to NumPy, which CuPy refuses; this one keeps
    the data where it is and computes the same values."""
    xp = _array_module(data)
    data = xp.asarray(data, dtype=dtype).copy()
    if encoded_fill_values:
        condition = xp.zeros(data.shape, dtype=bool)
        for fv in encoded_fill_values:
            condition |= data == fv
        data[condition] = decoded_fill_value
    return data


def _device_safe_cf_decoding(lazy: Any) -> None:
    """Replaces xarray's NumPy-only mask function in the lazy CF-decoding
    wrappers of a variable whose data lives on the GPU (scale/offset decoding
    already works on CuPy arrays)."""
    seen = 0
    while lazy is not None and seen < 16:
        func = getattr(lazy, "func", None)
        if isinstance(func, functools.partial) and getattr(func.func, "__name__", "") == "_apply_mask":
            lazy.func = functools.partial(_apply_mask_any_array, *func.args, **func.keywords)
        lazy = getattr(lazy, "array", None)
        seen += 1


def _path(filename_or_obj: Any) -> str | None:
    if isinstance(filename_or_obj, (str, os.PathLike)):
        return os.fspath(filename_or_obj)
    return None


class ZarrgpuBackendEntrypoint(BackendEntrypoint):
    """Opens Zarr stores (format 2 and 3) with zarrgpu: ``device="cuda"`` gives CuPy-backed
    data variables decoded on the GPU, ``device="cpu"`` NumPy (identical to ``engine="zarr"``)."""

    description = "Open Zarr stores with zarrgpu (GPU reads into CuPy, or NumPy)"
    url = "https://github.com/zarrgpu/zarrgpu"
    supports_groups = True
    open_dataset_parameters = (
        "filename_or_obj", "mask_and_scale", "decode_times", "concat_characters", "decode_coords",
        "drop_variables", "use_cftime", "decode_timedelta", "group", "consolidated", "device",
        "use_zarr_fill_value_as_mask", "storage_options",
    )

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        path = _path(filename_or_obj)
        if path is None:
            return False
        path = path.rstrip("/")
        if path.startswith("file://"):
            path = path[len("file://"):]
        return os.path.isdir(path) and any(os.path.exists(os.path.join(path, m)) for m in _ZARR_MARKERS)

    def open_dataset(
        self,
        filename_or_obj: Any,
        *,
        mask_and_scale=True,
        decode_times=True,
        concat_characters=True,
        decode_coords=True,
        drop_variables: str | Iterable[str] | None = None,
        use_cftime=None,
        decode_timedelta=None,
        group: str | None = None,
        consolidated: bool | None = None,
        device: str = "cpu",
        use_zarr_fill_value_as_mask: bool | None = None,
        storage_options: dict | None = None,
    ):
        url = _url(filename_or_obj)
        apply_storage_options(url, storage_options)
        store = ZarrgpuDataStore.open(url, group=group, consolidated=consolidated, device=device,
                                      use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask,
                                      drop_variables=_names(drop_variables))
        return _dataset_of(store, dict(
            mask_and_scale=mask_and_scale, decode_times=decode_times, concat_characters=concat_characters,
            decode_coords=decode_coords, drop_variables=drop_variables, use_cftime=use_cftime,
            decode_timedelta=decode_timedelta))

    def open_datatree(
        self,
        filename_or_obj: Any,
        *,
        mask_and_scale=True,
        decode_times=True,
        concat_characters=True,
        decode_coords=True,
        drop_variables: str | Iterable[str] | None = None,
        use_cftime=None,
        decode_timedelta=None,
        group: str | None = None,
        consolidated: bool | None = None,
        device: str = "cpu",
        use_zarr_fill_value_as_mask: bool | None = None,
    ):
        """Every group at or below ``group`` as a DataTree (as engine="zarr")."""
        from xarray.backends.common import datatree_from_dict_with_io_cleanup

        return datatree_from_dict_with_io_cleanup(self.open_groups_as_dict(
            filename_or_obj, mask_and_scale=mask_and_scale, decode_times=decode_times,
            concat_characters=concat_characters, decode_coords=decode_coords, drop_variables=drop_variables,
            use_cftime=use_cftime, decode_timedelta=decode_timedelta, group=group, consolidated=consolidated,
            device=device, use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask))

    def open_groups_as_dict(
        self,
        filename_or_obj: Any,
        *,
        mask_and_scale=True,
        decode_times=True,
        concat_characters=True,
        decode_coords=True,
        drop_variables: str | Iterable[str] | None = None,
        use_cftime=None,
        decode_timedelta=None,
        group: str | None = None,
        consolidated: bool | None = None,
        device: str = "cpu",
        use_zarr_fill_value_as_mask: bool | None = None,
    ) -> dict[str, Any]:
        """{"/": root dataset, "/a": ..., "/a/b": ...} for the root and every group below it;
        with ``group=``, that group and those below it, named as engine="zarr" names them
        (relative to it: ".", "b", "b/c")."""
        from xarray.core.treenode import NodePath

        root = ZarrgpuDataStore.open(_url(filename_or_obj), group=group, consolidated=consolidated, device=device,
                                     use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask,
                                     drop_variables=_names(drop_variables))
        decode = dict(mask_and_scale=mask_and_scale, decode_times=decode_times, concat_characters=concat_characters,
                      decode_coords=decode_coords, drop_variables=drop_variables, use_cftime=use_cftime,
                      decode_timedelta=decode_timedelta)
        # The root's tree (consolidated metadata when present, else a listing) names the groups.
        below = sorted(p for p, node in root.group.tree().items() if node["node_type"] == "group")
        parent = NodePath("/") / NodePath(group or "")

        def name(path: str) -> str:
            return str(NodePath("/") / path) if not group else str((parent / path).relative_to(parent))

        out = {name(""): _dataset_of(root, decode)}
        try:
            for path in below:
                store = ZarrgpuDataStore(root.group[path], root.device, use_zarr_fill_value_as_mask,
                                         _names(drop_variables))
                out[name(path)] = _dataset_of(store, decode)
        except Exception:
            for ds in out.values():
                ds.close()
            raise
        return out


def _names(drop_variables: str | Iterable[str] | None) -> list[str]:
    return [drop_variables] if isinstance(drop_variables, str) else list(drop_variables or ())


def _url(filename_or_obj: Any) -> str:
    path = _path(filename_or_obj)
    if path is None:
        raise TypeError(f"engine='zarrgpu' opens a path, file://, http(s)://, s3:// or gs:// URL, got {type(filename_or_obj).__name__}")
    return path


def _dataset_of(store: ZarrgpuDataStore, decode: dict):
    """The CF-decoded Dataset of one group, as xarray's StoreBackendEntrypoint makes it."""
    with close_on_error(store):
        ds = StoreBackendEntrypoint().open_dataset(store, **decode)
        if store.device.kind != "cpu":
            for var in ds.variables.values():
                _device_safe_cf_decoding(var._data)
        return ds
