"""NumPy basic indexing (integers, slices, Ellipsis) and orthogonal integer lists
-> the C++ Selection.

A key is normalised against the array's shape here, so errors read like NumPy's
(IndexError for out-of-bounds integers) and the result's shape is known before
the read allocates its output. Each dimension becomes the tuple
``(start, stop, step, is_index)`` that ``_zarrgpu`` turns into a DimSelection,
or a 1-D int64 array of positions (negatives already counted from the end).

Lists index orthogonally (zarr-python's ``oindex``, xarray's OuterIndexer): each
listed dimension independently, keeping its place in the result. That is NumPy's
result too when a key holds one list and otherwise only slices, which is what
``a[key]`` accepts (``orthogonal=False``); ``read()`` and ``oindex`` take any mix.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from .errors import BoundsError

DimTuple = tuple  # (start | None, stop | None, step | None, is_index)


def _as_index(k: Any) -> int | None:
    if isinstance(k, bool):  # NumPy treats booleans as masks: not basic indexing
        return None
    try:
        return operator.index(k)
    except TypeError:
        return None


def _as_positions(k: Any, axis: int, n: int) -> np.ndarray | None:
    """A 1-D integer list/array as normalised int64 positions; None if ``k`` is not one."""
    if isinstance(k, (str, bytes)) or not isinstance(k, (list, tuple, range, np.ndarray)) and not (
        hasattr(k, "__array__") and not np.isscalar(k)
    ):
        return None
    a = np.asarray(k)
    if a.dtype == bool:
        raise TypeError(f"boolean masks are not supported (axis {axis}); pass np.flatnonzero(mask)")
    if a.ndim != 1:
        raise IndexError(f"a list of positions must be 1-D (axis {axis} got {a.ndim} dimensions)")
    if a.size == 0:
        a = a.astype(np.int64)
    if not np.issubdtype(a.dtype, np.integer):
        raise IndexError(f"a list of positions must hold integers (axis {axis} got dtype {a.dtype})")
    a = a.astype(np.int64, copy=True)
    bad = (a < -n) | (a >= n)
    if bad.any():
        raise BoundsError(f"index {int(a[bad][0])} is out of bounds for axis {axis} with size {n}")
    a[a < 0] += n
    return a


def normalize_key(key: Any, shape: Sequence[int], orthogonal: bool = False) -> tuple[list, tuple[int, ...]]:
    """Returns (per-dimension tuples or position arrays, result shape) for a key.

    ``orthogonal=False`` (NumPy semantics, ``a[key]``) accepts one list of positions
    when every other entry is a slice; ``orthogonal=True`` accepts lists anywhere."""
    if not isinstance(key, tuple):
        key = (key,)
    n_ellipsis = sum(1 for k in key if k is Ellipsis)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_real = len(key) - n_ellipsis
    if n_real > len(shape):
        raise IndexError(
            f"too many indices for array: array is {len(shape)}-dimensional, but {n_real} were indexed"
        )
    if n_ellipsis:
        i = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (len(shape) - n_real) + key[i + 1 :]
    else:
        key = key + (slice(None),) * (len(shape) - len(key))

    dims: list[DimTuple] = []
    result: list[int] = []
    for axis, (k, n) in enumerate(zip(key, shape)):
        if isinstance(k, slice):
            start, stop, step = k.indices(n)  # raises ValueError for step 0, like NumPy
            count = len(range(start, stop, step))
            if count == 0:
                dims.append((0, 0, 1, False))
            elif step < 0 and stop < 0:
                dims.append((start, None, step, False))  # runs down to index 0 inclusive
            else:
                dims.append((start, stop, step, False))
            result.append(count)
            continue
        i = _as_index(k)
        if i is None:
            positions = None if isinstance(k, tuple) else _as_positions(k, axis, n)
            if positions is not None:
                dims.append(positions)
                result.append(len(positions))
                continue
            if k is None:
                raise IndexError("zarrgpu arrays do not support np.newaxis / None; reshape the result instead")
            raise TypeError(
                f"zarrgpu arrays take integers, slices, ... and 1-D integer lists; got {type(k).__name__} "
                f"for axis {axis}. Read a slice and index the NumPy/CuPy result for other advanced indexing."
            )
        if i < -n or i >= n:
            raise BoundsError(f"index {i} is out of bounds for axis {axis} with size {n}")
        dims.append((i + n if i < 0 else i, None, None, True))
    if not orthogonal:
        lists = sum(1 for d in dims if isinstance(d, np.ndarray))
        if lists > 1 or (lists == 1 and any(not isinstance(d, np.ndarray) and d[3] for d in dims)):
            raise TypeError(
                "a[key] takes one list of positions with slices only (there NumPy's and orthogonal indexing "
                "agree); use a.oindex[key] or a.read(key) for orthogonal indexing with several lists or integers"
            )
    return dims, tuple(result)
