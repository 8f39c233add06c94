"""The conformance corpus for the Python tests: the repository's (tests/corpus/data, or
$ZARRGPU_CORPUS_DIR), and in addition a further one at $ZARRGPU_EXTRA_CORPUS_DIR or
../shared/corpus when present, whose arrays and stores the repository's lacks (by name)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[2]


def _is_corpus(candidate: str | os.PathLike | None) -> bool:
    return bool(candidate) and (Path(candidate) / "README.md").exists()


def corpus_dir() -> Path | None:
    """The repository's corpus (resolved: TensorStore's file driver rejects paths with "..")."""
    for candidate in (os.environ.get("ZARRGPU_CORPUS_DIR"), _REPO / "tests" / "corpus" / "data"):
        if _is_corpus(candidate):
            return Path(candidate).resolve()
    return None


def corpus_dirs() -> list[Path]:
    """The repository's corpus, then the further one when present (each once)."""
    out = []
    for candidate in (corpus_dir(), os.environ.get("ZARRGPU_EXTRA_CORPUS_DIR"), _REPO.parent / "shared" / "corpus"):
        if _is_corpus(candidate) and Path(candidate).resolve() not in out:
            out.append(Path(candidate).resolve())
    return out


def expected_arrays() -> list[tuple[str, dict]]:
    """(id, {store, array, dtype, shape, sha256}) for every array in the corpora."""
    out, seen = [], set()
    for root in corpus_dirs():
        for f in sorted(root.glob("expected_*.json")):
            for name, entry in sorted(json.loads(f.read_text()).items()):
                if name not in seen:
                    seen.add(name)
                    out.append((name, dict(entry, store=str(root / entry["store"]))))
    return out


def _stores() -> list[Path]:
    out, seen = [], set()
    for root in corpus_dirs():
        for store in sorted(root.glob("*.zarr")):
            if store.name not in seen:
                seen.add(store.name)
                out.append(store)
    return out


def _is_group(store: Path) -> bool:
    if (store / ".zgroup").exists():
        return True
    return (store / "zarr.json").exists() and json.loads((store / "zarr.json").read_text())["node_type"] == "group"


def group_stores() -> list[Path]:
    return [s for s in _stores() if _is_group(s)]


def array_stores() -> list[Path]:
    return [s for s in _stores() if not _is_group(s)]


requires_corpus = pytest.mark.skipif(corpus_dir() is None, reason="conformance corpus not found (tests/corpus/data)")
