"""Transforms a loader applies to each batch on its own stream, before the batch is handed out.

- :class:`Normalize` (per-channel ``(x - mean) / std``) runs where the batch is still in a
  precision that holds it: on the store's values before a conversion to ``dtype``
  (bf16/fp16), on the batch buffer otherwise. Statistics come from :class:`Stats` (given, loaded
  with :meth:`Stats.load`, or computed by :meth:`Loader.compute_stats`).
- :class:`RandomCrop` picks one window of the spatial dimensions per batch (a view, no copy)
  or, ``per_sample=True``, one per sample (gathered into a new tensor); offsets come from
  ``(seed, epoch, batch, rank)``, so a resumed epoch crops the same.
- Any other callable takes the :class:`Batch` and returns it (or None: changed in place); it
  runs on the loader's thread and stream after the transforms before it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..errors import InvalidArgumentError


@dataclass
class Stats:
    """Per-channel mean and standard deviation, in the loader's channel order."""

    channels: list[str]
    mean: np.ndarray
    std: np.ndarray
    samples: int = 0  # samples the statistics were computed over (0: given)

    def __post_init__(self):
        self.mean = np.asarray(self.mean, dtype=np.float64).reshape(-1)
        self.std = np.asarray(self.std, dtype=np.float64).reshape(-1)
        if not (len(self.channels) == len(self.mean) == len(self.std)):
            raise InvalidArgumentError(
                f"stats: {len(self.channels)} channels, {len(self.mean)} means, {len(self.std)} stds"
            )
        if np.any(~np.isfinite(self.std)) or np.any(self.std <= 0):
            raise InvalidArgumentError("stats: every std must be finite and > 0")

    def save(self, path: str | os.PathLike) -> None:
        """Writes JSON (channel names, mean, std), e.g. next to a run's checkpoints."""
        doc = {"channels": list(self.channels), "mean": self.mean.tolist(), "std": self.std.tolist(),
               "samples": int(self.samples)}
        tmp = f"{os.fspath(path)}.tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Stats":
        with open(path) as f:
            doc = json.load(f)
        return cls(list(doc["channels"]), np.asarray(doc["mean"]), np.asarray(doc["std"]), int(doc.get("samples", 0)))


class Normalize:
    """Per-channel normalisation: ``Normalize(stats)`` or ``Normalize(mean=[...], std=[...])``
    (a list per channel, or a path to a saved :class:`Stats`)."""

    def __init__(self, stats: Stats | str | os.PathLike | None = None, *, mean: Sequence[float] | None = None,
                 std: Sequence[float] | None = None):
        if isinstance(stats, (str, os.PathLike)):
            stats = Stats.load(stats)
        if stats is None:
            if mean is None or std is None:
                raise InvalidArgumentError("Normalize needs stats, or mean= and std=")
            stats = Stats([f"channel {i}" for i in range(len(np.atleast_1d(mean)))], np.atleast_1d(mean),
                          np.atleast_1d(std))
        self.stats = stats

    def check(self, channel_names: list[str]) -> None:
        n = len(channel_names)
        if len(self.stats.mean) != n:
            raise InvalidArgumentError(f"Normalize has {len(self.stats.mean)} channels, the batch {n}")
        named = not all(c.startswith("channel ") for c in self.stats.channels)
        if named and list(self.stats.channels) != list(channel_names):
            raise InvalidArgumentError(
                f"Normalize's channels {self.stats.channels[:4]}... are not the loader's {channel_names[:4]}..."
            )


class RandomCrop:
    """A random ``size = (h, w)`` window of the two spatial dimensions, per batch (a view) or
    per sample (``per_sample=True``: a gathered copy)."""

    def __init__(self, size: tuple[int, int] | int, per_sample: bool = False):
        self.size = (size, size) if isinstance(size, int) else tuple(int(s) for s in size)
        if len(self.size) != 2 or min(self.size) < 1:
            raise InvalidArgumentError(f"RandomCrop size must be two positive ints, got {size!r}")
        self.per_sample = per_sample

    def check(self, spatial_shape: tuple[int, int]) -> None:
        if self.size[0] > spatial_shape[0] or self.size[1] > spatial_shape[1]:
            raise InvalidArgumentError(f"RandomCrop {self.size} is larger than the fields {spatial_shape}")

    def __call__(self, batch: Any, rng: np.random.Generator) -> Any:
        import torch

        ch, cw = self.size
        tensors = list(batch.data.values()) if isinstance(batch.data, dict) else [batch.data]
        h, w, b = tensors[0].shape[-2], tensors[0].shape[-1], tensors[0].shape[0]
        # One draw per batch for every variable, so a dict's variables stay aligned.
        n = b if self.per_sample else 1
        ys, xs = rng.integers(0, h - ch + 1, size=n), rng.integers(0, w - cw + 1, size=n)

        def crop(x):
            if not self.per_sample:
                return x[..., int(ys[0]):int(ys[0]) + ch, int(xs[0]):int(xs[0]) + cw]
            return torch.stack([x[i, ..., int(ys[i]):int(ys[i]) + ch, int(xs[i]):int(xs[i]) + cw] for i in range(b)])

        batch.data = {k: crop(v) for k, v in batch.data.items()} if isinstance(batch.data, dict) else crop(batch.data)
        return batch
