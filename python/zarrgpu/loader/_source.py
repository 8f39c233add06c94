"""What a loader reads: its variables, their selections, channels and sample coordinate.

A source is a store path or URL (``https://``, ``s3://``: ``storage_options`` as
:func:`zarrgpu.open` takes them), a :class:`zarrgpu.Group` or an xarray Dataset opened with
``engine="zarrgpu"``. Each variable has the sample dimension first, then any number of
channel-like dimensions (levels, channels), then two spatial dimensions. ``select`` maps a
dimension to labels of its coordinate array (a scalar, a list, or a ``slice`` of labels,
inclusive as xarray's ``sel``) or, where the store has no coordinate of that name, to
positions. A variable's channels are the C-order product of its channel-like dimensions
after selection; the loader stacks variables' channels in the order the variables are given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..array import Array
from ..errors import InvalidArgumentError, NotFoundError
from ..group import Group


@dataclass
class VariablePlan:
    """One variable: its array, the selection of every dimension but the sample one, and its
    place among the batch's channels."""

    name: str
    array: Array
    rest: tuple  # selection of dims 1.. (positions: ints, slices, int64 arrays)
    channel_shape: tuple[int, ...]  # channel-like dims after selection (() for a surface field)
    spatial_shape: tuple[int, int]
    channel_names: list[str] = field(default_factory=list)
    first_channel: int = 0

    @property
    def channels(self) -> int:
        return int(np.prod(self.channel_shape, dtype=np.int64))

    @property
    def sample_chunk(self) -> int:
        """Steps per (inner) chunk along the sample dimension."""
        return int(self.array.chunks[0])

    def step_bytes(self) -> int:
        return self.channels * self.spatial_shape[0] * self.spatial_shape[1] * self.array.itemsize


def _dimension_names(array: Array) -> tuple[str, ...]:
    names = array.dimension_names
    if names is None or any(n is None for n in names):
        names = array.attrs.get("_ARRAY_DIMENSIONS") if hasattr(array, "attrs") else None
    if not names or len(names) != array.ndim:
        raise InvalidArgumentError(
            f"array {array.path!r} has no dimension names (v3 dimension_names or v2 _ARRAY_DIMENSIONS)"
        )
    return tuple(names)


def _from_dataset(ds: Any) -> tuple[Group | None, dict[str, Array], Any]:
    """The zarrgpu arrays behind an xarray Dataset opened with engine="zarrgpu"."""
    from ..xarray_backend import ZarrgpuBackendArray

    arrays: dict[str, Array] = {}
    for name, var in ds.variables.items():
        data = var._data
        seen = 0
        while not isinstance(data, ZarrgpuBackendArray) and hasattr(data, "array") and seen < 16:
            data, seen = data.array, seen + 1
        if isinstance(data, ZarrgpuBackendArray):
            a = data.get_array()
            if tuple(a.shape) != tuple(var.shape):
                raise InvalidArgumentError(
                    f"variable {name!r} of the Dataset was indexed ({var.shape} of the store's {a.shape}); "
                    "pass the whole Dataset and choose steps and levels with select="
                )
            arrays[str(name)] = a
    if not arrays:
        raise InvalidArgumentError("the Dataset has no variables opened with engine='zarrgpu' (not loaded)")
    return None, arrays, ds


def _label_positions(dim: str, labels: Any, coord: np.ndarray | None) -> Any:
    """select= entry -> positions: ints, a slice or an int64 array."""
    if coord is None:
        if isinstance(labels, slice) or np.isscalar(labels):
            return labels
        return np.asarray(labels, dtype=np.int64)
    if isinstance(labels, slice):
        if labels.step is not None:
            raise InvalidArgumentError(f"select[{dim!r}]: label slices take no step")
        ok = np.ones(len(coord), dtype=bool)
        if labels.start is not None:
            ok &= coord >= labels.start
        if labels.stop is not None:
            ok &= coord <= labels.stop
        pos = np.flatnonzero(ok)
        if pos.size == 0:
            raise InvalidArgumentError(f"select[{dim!r}]: no {dim} between {labels.start} and {labels.stop}")
        return pos.astype(np.int64)
    scalar = np.isscalar(labels) or isinstance(labels, np.generic) or (
        isinstance(labels, np.ndarray) and labels.ndim == 0)
    wanted = np.atleast_1d(np.asarray(labels))
    pos = []
    for v in wanted:
        hit = np.flatnonzero(coord == v)
        if hit.size == 0:
            raise InvalidArgumentError(f"select[{dim!r}]: {v!r} is not a {dim} of the store ({coord[:8]}...)")
        pos.append(int(hit[0]))
    return pos[0] if scalar else np.asarray(pos, dtype=np.int64)


class Source:
    """The resolved source of a loader: variables, the sample dimension's positions and labels."""

    def __init__(self, source: Any, variables: Sequence[str] | str, sample_dim: str, select: dict | None,
                 storage_options: dict | None = None):
        from .. import open as zopen

        select = dict(select or {})
        ds = None
        if storage_options and not isinstance(source, (str, os.PathLike)):
            raise InvalidArgumentError(
                f"storage_options apply to a store URL; the source is a {type(source).__name__}, opened already")
        if isinstance(source, (str, os.PathLike)):
            node = zopen(source, storage_options=storage_options)
            if isinstance(node, Array):
                raise InvalidArgumentError(f"{source}: the loader reads a group, this is an array")
            group, arrays = node, None
        elif isinstance(source, Group):
            group, arrays = source, None
        elif hasattr(source, "data_vars") and hasattr(source, "variables"):
            group, arrays, ds = _from_dataset(source)
        else:
            raise InvalidArgumentError(
                f"source must be a store path, a zarrgpu.Group or an xarray Dataset, got {type(source).__name__}"
            )
        self.group = group
        if isinstance(variables, str):
            variables = [variables]
        variables = list(variables)
        if not variables:
            raise InvalidArgumentError("variables is empty")
        if len(set(variables)) != len(variables):
            raise InvalidArgumentError(f"variables repeat a name: {variables}")

        def get_array(name: str) -> Array | None:
            if arrays is not None:
                return arrays.get(name)
            try:
                node = group[name]
            except (NotFoundError, KeyError):
                return None
            return node if isinstance(node, Array) else None

        def coordinate(dim: str) -> np.ndarray | None:
            if ds is not None:
                return np.asarray(ds[dim].values) if dim in ds.coords or dim in ds.variables else None
            a = get_array(dim)
            return a[...] if a is not None and a.ndim == 1 else None

        self.sample_dim = sample_dim
        plans: list[VariablePlan] = []
        known_dims: set[str] = set()
        for name in variables:
            a = get_array(name)
            if a is None:
                raise InvalidArgumentError(f"unknown variable {name!r} (no such array in {getattr(group, 'store', 'the Dataset')})")
            dims = _dimension_names(a)
            known_dims.update(dims)
            if dims[0] != sample_dim:
                raise InvalidArgumentError(f"variable {name!r} has dimensions {dims}: the sample dimension "
                                           f"{sample_dim!r} must come first")
            if len(dims) < 3:
                raise InvalidArgumentError(f"variable {name!r} has dimensions {dims}: a loader needs "
                                           f"({sample_dim}, [channels...], y, x)")
            rest, channel_shape, channel_axes = [], [], []
            spatial = []
            for axis, dim in enumerate(dims[1:], start=1):
                sel = _label_positions(dim, select[dim], coordinate(dim)) if dim in select else slice(None)
                rest.append(sel)
                n = a.shape[axis]
                if isinstance(sel, slice):
                    count = len(range(*sel.indices(n)))
                elif isinstance(sel, np.ndarray):
                    count = len(sel)
                else:
                    count = None  # an integer drops the dimension
                if axis >= len(dims) - 2:
                    if count is None:
                        raise InvalidArgumentError(f"select[{dim!r}] is one position: spatial dimensions need a range")
                    spatial.append(count)
                elif count is not None:
                    channel_shape.append(count)
                    channel_axes.append((dim, sel, n))
            names = self._channel_names(name, channel_axes, coordinate)
            plans.append(VariablePlan(name, a, tuple(rest), tuple(channel_shape), (spatial[0], spatial[1]), names))
        for dim in select:
            if dim not in known_dims:
                raise InvalidArgumentError(f"select names {dim!r}, which no variable has (dimensions: {sorted(known_dims)})")
        spatial = {p.spatial_shape for p in plans}
        if len(spatial) != 1:
            raise InvalidArgumentError(f"variables differ in their spatial shape: "
                                       f"{ {p.name: p.spatial_shape for p in plans} }")
        lengths = {p.array.shape[0] for p in plans}
        if len(lengths) != 1:
            raise InvalidArgumentError(f"variables differ in their {sample_dim!r} length: "
                                       f"{ {p.name: p.array.shape[0] for p in plans} }")
        first = 0
        for p in plans:
            if p.channels == 0:
                raise InvalidArgumentError(f"variable {p.name!r} has no channels left after select")
            p.first_channel = first
            first += p.channels
        self.variables = plans
        self.num_channels = first
        self.spatial_shape = plans[0].spatial_shape
        n = lengths.pop()
        # The sample dimension's positions (select= may restrict them, e.g. a training period).
        coord = coordinate(sample_dim)
        if coord is not None:
            coord = self._decode(coord, sample_dim)
        if sample_dim in select:
            sel = _label_positions(sample_dim, select[sample_dim], coord)
            if isinstance(sel, slice):
                positions = np.arange(n, dtype=np.int64)[sel]
            else:
                positions = np.atleast_1d(np.asarray(sel, dtype=np.int64))
                positions = np.where(positions < 0, positions + n, positions)
                if np.any(np.diff(positions) <= 0):
                    raise InvalidArgumentError(f"select[{sample_dim!r}] must be increasing")
        else:
            positions = np.arange(n, dtype=np.int64)
        self.positions = positions
        self.labels = coord if coord is not None else np.arange(n)
        if len(self.labels) != n:
            self.labels = np.arange(n)

    def _decode(self, values: np.ndarray, dim: str) -> np.ndarray:
        """CF times (``units: "hours since ..."``) as datetime64 when read from a store."""
        if self.group is None or np.issubdtype(values.dtype, np.datetime64):
            return values
        attrs = dict(self.group[dim].attrs)
        units = attrs.get("units")
        if isinstance(units, str) and " since " in units:
            try:
                from xarray.coding.times import decode_cf_datetime

                return np.asarray(decode_cf_datetime(values, units, attrs.get("calendar")))
            except Exception:  # xarray missing or a calendar it cannot decode: raw values
                return values
        return values

    @staticmethod
    def _channel_names(name: str, axes: list, coordinate) -> list[str]:
        names = [name]
        for dim, sel, n in axes:
            coord = coordinate(dim)
            pos = np.arange(n)[sel] if isinstance(sel, slice) else np.asarray(sel)
            labels = coord[pos] if coord is not None else pos
            names = [f"{prefix}[{dim}={lab}]" if "[" not in prefix else f"{prefix[:-1]},{dim}={lab}]"
                     for prefix in names for lab in labels]
        return names

    @property
    def channel_names(self) -> list[str]:
        return [c for p in self.variables for c in p.channel_names]
