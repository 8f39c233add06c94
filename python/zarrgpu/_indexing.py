"""NumPy basic indexing (integers, slices, Ellipsis) -> the C++ Selection.

A key is normalised against the array's shape here, so errors read like NumPy's
(IndexError for out-of-bounds integers) and the result's shape is known before
the read allocates its output. Each dimension becomes the tuple
``(start, stop, step, is_index)`` that ``_zarrgpu`` turns into a DimSelection.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

from .errors import BoundsError

DimTuple = tuple  # (start | None, stop | None, step | None, is_index)


def _as_index(k: Any) -> int | None:
    if isinstance(k, bool):  # NumPy treats booleans as masks: not basic indexing
        return None
    try:
        return operator.index(k)
    except TypeError:
        return None


def normalize_key(key: Any, shape: Sequence[int]) -> tuple[list[DimTuple], tuple[int, ...]]:
    """Returns (per-dimension tuples, result shape) for a basic-indexing key."""
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
            if k is None:
                raise IndexError("zarrgpu arrays do not support np.newaxis / None; reshape the result instead")
            raise TypeError(
                f"zarrgpu arrays support basic indexing only (integers, slices, ...); got {type(k).__name__} "
                f"for axis {axis}. Read a slice and index the NumPy/CuPy result for advanced indexing."
            )
        if i < -n or i >= n:
            raise BoundsError(f"index {i} is out of bounds for axis {axis} with size {n}")
        dims.append((i + n if i < 0 else i, None, None, True))
    return dims, tuple(result)
