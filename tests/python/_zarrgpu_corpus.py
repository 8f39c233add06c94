"""The conformance corpus (/work/shared/corpus, or $ZARRGPU_CORPUS_DIR) for the Python tests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[2]


def corpus_dir() -> Path | None:
    for candidate in (os.environ.get("ZARRGPU_CORPUS_DIR"), _REPO.parent / "shared" / "corpus"):
        if candidate and (Path(candidate) / "README.md").exists():
            # Resolved: TensorStore's file driver rejects paths with "..".
            return Path(candidate).resolve()
    return None


def expected_arrays() -> list[tuple[str, dict]]:
    """(id, {store, array, dtype, shape, sha256}) for every array in the corpus."""
    root = corpus_dir()
    if root is None:
        return []
    out = []
    for f in sorted(root.glob("expected_*.json")):
        for name, entry in sorted(json.loads(f.read_text()).items()):
            out.append((name, dict(entry, store=str(root / entry["store"]))))
    return out


def group_stores() -> list[Path]:
    root = corpus_dir()
    if root is None:
        return []
    out = []
    for store in sorted(root.glob("*.zarr")):
        if (store / ".zgroup").exists():
            out.append(store)
        elif (store / "zarr.json").exists() and json.loads((store / "zarr.json").read_text())["node_type"] == "group":
            out.append(store)
    return out


def array_stores() -> list[Path]:
    root = corpus_dir()
    if root is None:
        return []
    groups = set(group_stores())
    return [s for s in sorted(root.glob("*.zarr")) if s not in groups]


requires_corpus = pytest.mark.skipif(corpus_dir() is None, reason="conformance corpus not found (set ZARRGPU_CORPUS_DIR)")
