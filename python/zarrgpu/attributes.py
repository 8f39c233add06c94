"""``node.attrs``: a node's attributes as a mutable mapping that writes through.

Every change rewrites the node's metadata document (zarr.json, or .zattrs for
format 2) and the consolidated metadata of the groups above it, in the C++ core,
so another reader (zarr-python, xarray) sees it at once. A node opened with
``mode="r"`` refuses changes with :class:`ReadOnlyError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

from .errors import InvalidArgumentError, ReadOnlyError


def _json_value(x: Any) -> Any:
    import numpy as np

    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, (tuple, set)):
        return list(x)
    raise TypeError(f"attribute value of type {type(x).__name__} is not JSON serialisable")


def attributes_json(attrs: Mapping | None) -> str:
    """The attributes as the JSON text the core takes. NaN and ±inf go as Python's json
    module (so zarr-python) writes them, bare NaN/Infinity/-Infinity, and stay so in the
    documents the core writes."""
    try:
        return json.dumps(dict(attrs or {}), default=_json_value)
    except (ValueError, RecursionError) as e:
        raise InvalidArgumentError(f"attributes must be JSON: {e}") from None


class Attributes(MutableMapping):
    """The attributes of an :class:`~zarrgpu.Array` or :class:`~zarrgpu.Group`."""

    def __init__(self, node: Any):
        self._node = node

    def _current(self) -> dict:
        return self._node._meta["attributes"]

    def _write(self, new: dict) -> None:
        if self._node._mode == "r":
            raise ReadOnlyError(
                f"{self._node.name} in {self._node.store} was opened with mode='r'; open it with mode='r+' to change attributes"
            )
        self._node._set_attributes(attributes_json(new))

    def __getitem__(self, key: str) -> Any:
        return self._current()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._current()))

    def __len__(self) -> int:
        return len(self._current())

    def __setitem__(self, key: str, value: Any) -> None:
        new = dict(self._current())
        new[key] = value
        self._write(new)

    def __delitem__(self, key: str) -> None:
        new = dict(self._current())
        del new[key]
        self._write(new)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Sets several attributes with one metadata write."""
        new = dict(self._current())
        new.update(*args, **kwargs)
        self._write(new)

    def put(self, attrs: Mapping) -> None:
        """Replaces every attribute (zarr-python's Attributes.put)."""
        self._write(dict(attrs))

    def asdict(self) -> dict:
        return dict(self._current())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return repr(self._current())
