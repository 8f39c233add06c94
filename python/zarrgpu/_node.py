"""What arrays and groups share: metadata attributes and their place in the store."""

from __future__ import annotations


class Node:
    """Base of Array and Group; subclasses set ``_core`` (the C++ node) and ``_meta``."""

    _core: object
    _meta: dict

    @property
    def attrs(self) -> dict:
        return dict(self._meta["attributes"])

    @property
    def zarr_format(self) -> int:
        return self._meta["zarr_format"]

    @property
    def path(self) -> str:
        return self._core.path

    @property
    def name(self) -> str:
        return "/" + self.path
