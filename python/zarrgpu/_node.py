"""What arrays and groups share: metadata attributes and their place in the store."""

from __future__ import annotations

from .attributes import Attributes


class Node:
    """Base of Array and Group; subclasses set ``_core`` (the C++ node), ``_meta`` and ``_mode``."""

    _core: object
    _meta: dict
    _mode: str

    @property
    def attrs(self) -> Attributes:
        """The attributes; assignments, ``update`` and ``del`` write through (mode "r+"/"a")."""
        return Attributes(self)

    def _set_attributes(self, doc: str) -> None:
        self._core.set_attributes(doc)
        self._meta = self._core.metadata

    @property
    def read_only(self) -> bool:
        return self._mode == "r"

    @property
    def zarr_format(self) -> int:
        return self._meta["zarr_format"]

    @property
    def path(self) -> str:
        return self._core.path

    @property
    def name(self) -> str:
        return "/" + self.path
