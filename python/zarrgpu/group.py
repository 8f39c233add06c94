"""zarrgpu.Group: a Zarr group, its members and (consolidated) tree."""

from __future__ import annotations

import posixpath
from typing import Any, Iterator

from . import _zarrgpu
from ._node import Node
from .array import Array
from .errors import InvalidMetadataError, NotFoundError, ReadOnlyError, UnsupportedError


class Group(Node):
    """A group in a Zarr store (format 2 or 3). ``g["a/b"]`` opens a member."""

    def __init__(self, core: _zarrgpu.Group, url: str, mode: str = "r", consolidated: bool | None = None):
        self._core = core
        self._url = url
        self._mode = mode
        self._consolidated = consolidated  # as asked when opened: kept for re-opening
        self._meta = core.metadata
        self._tree: dict | None = None

    def _reopen(self) -> None:
        """Reads the group again (after zarrgpu changed what lies below it)."""
        self._core = _zarrgpu.Group.open(self._url, self.path, self._consolidated)
        self._meta = self._core.metadata
        self._tree = None

    @property
    def store(self) -> str:
        return self._url

    @property
    def is_consolidated(self) -> bool:
        """Whether member metadata comes from consolidated metadata (v2 .zmetadata or v3 inline)."""
        return self._core.is_consolidated

    def tree(self) -> dict[str, dict]:
        """Every node below: relative path -> metadata document (consolidated when available).

        A node zarrgpu cannot open (unsupported data type or codec, broken metadata) is
        listed as ``{"node_type": "array" | "group" | None, "zarr_format": n,
        "unreadable": {"kind", "cause", "message"}}``; ``group[path]`` raises its error."""
        if self._tree is None:
            self._tree = self._core.tree()
        return self._tree

    def member_kinds(self) -> dict[str, str | None]:
        """Direct members -> "array" or "group" (None: unreadable, type unknown); from
        consolidated metadata when present (no listing of the store), else one metadata
        read per member. Unreadable members are included: see :meth:`unreadable`."""
        if self.is_consolidated:
            return {n: m["node_type"] for n, m in self.tree().items() if "/" not in n}
        return {name: self._member(name)["node_type"] for name in self._core.members()}

    def unreadable(self) -> dict[str, str]:
        """Direct members zarrgpu cannot open -> the reason (the error ``group[name]`` raises)."""
        if self.is_consolidated:
            nodes = {n: m for n, m in self.tree().items() if "/" not in n}
        else:
            nodes = {name: self._member(name) for name in self._core.members()}
        return {n: m["unreadable"]["message"] for n, m in nodes.items() if "unreadable" in m}

    def _member(self, name: str) -> dict:
        """One direct member's metadata document, as tree() lists it (never raises for
        an unreadable member)."""
        return self._core.member(name)

    def member_names(self) -> list[str]:
        return sorted(self._core.members())

    def keys(self) -> list[str]:
        return self.member_names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.member_names())

    def __len__(self) -> int:
        return len(self.member_names())

    def __contains__(self, name: str) -> bool:
        name = name.strip("/")
        if self.is_consolidated:
            return name in self.tree()
        try:
            self[name]
        except NotFoundError:
            return False
        except (InvalidMetadataError, UnsupportedError):
            return True  # there, but unreadable
        return True

    def __getitem__(self, name: str) -> "Array | Group":
        name = name.strip("/")
        # Consolidated metadata answers at once; otherwise one read of the member's own
        # documents (never a listing of the store).
        node = self.tree().get(name) if self.is_consolidated else None
        if node is not None:
            if node["node_type"] == "array":
                return Array(self._core.open_array(name), self._url, self._mode)
            return Group(self._core.open_group(name), self._url, self._mode, self._consolidated)
        full = posixpath.join(self.path, name) if self.path else name
        core = _zarrgpu.open_member(self._url, full, self._consolidated)
        if isinstance(core, _zarrgpu.Array):
            return Array(core, self._url, self._mode)
        return Group(core, self._url, self._mode, self._consolidated)

    def get(self, name: str, default: Any = None):
        try:
            return self[name]
        except (NotFoundError, KeyError):
            return default

    def arrays(self) -> Iterator[tuple[str, Array]]:
        for name in self.member_names():
            node = self[name]
            if isinstance(node, Array):
                yield name, node

    def groups(self) -> Iterator[tuple[str, "Group"]]:
        for name in self.member_names():
            node = self[name]
            if isinstance(node, Group):
                yield name, node

    def _check_writable(self, what: str) -> None:
        if self.read_only:
            raise ReadOnlyError(f"group {self.name} in {self._url} was opened with mode='r'; open it with mode='r+' to {what}")

    def create_array(self, name: str, **kwargs) -> Array:
        """Creates an array in this group (see :func:`zarrgpu.create_array`); the group's
        consolidated metadata, if any, is rewritten to include it."""
        from .create import create_array

        self._check_writable("create arrays")
        kwargs.setdefault("zarr_format", self.zarr_format)
        array = create_array(self._url, posixpath.join(self.path, name) if self.path else name, **kwargs)
        self._reopen()
        return array

    def create_group(self, name: str, **kwargs) -> "Group":
        from .create import create_group

        self._check_writable("create groups")
        kwargs.setdefault("zarr_format", self.zarr_format)
        group = create_group(self._url, posixpath.join(self.path, name) if self.path else name, **kwargs)
        self._reopen()
        return group

    def __reduce__(self):
        # Pickles as its location and open options (see Array.__reduce__).
        return _reopen_group, (self._url, self.path, self._mode, self._consolidated)

    def __repr__(self) -> str:
        return f"<zarrgpu.Group {self._url}{'/' + self.path if self.path else ''} zarr_format={self.zarr_format}>"


def _reopen_group(url: str, path: str, mode: str, consolidated: bool | None = None) -> Group:
    """Unpickles a Group: opens it again from its store, with the options it was opened with."""
    return Group(_zarrgpu.Group.open(url, path, consolidated), url, mode, consolidated)
