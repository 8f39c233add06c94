"""Which samples each batch of an epoch holds, on each rank.

A sample is a window of ``history + horizon`` steps of the sample dimension, ``stride``
apart (PhysicsNeMo's ERA5 datapipe's meaning: stride 2 on 6-hourly data pairs t with t+12h);
sample ``i`` starts at the i-th selected step. An epoch's order is a permutation drawn from
``(seed, epoch)``, the same on every rank. The order is then cut to a multiple of
``world_size`` (``drop_last``) or padded by repeating its start, and rank r takes every
world_size-th sample from r: disjoint (up to the padding), equal shares, so no rank waits.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError


class Sampler:
    def __init__(self, positions: np.ndarray, history: int, horizon: int, stride: int, batch_size: int,
                 shuffle: bool, seed: int, drop_last: bool, rank: int, world_size: int):
        for name, v, low in (("history", history, 1), ("horizon", horizon, 0), ("stride", stride, 1),
                             ("batch_size", batch_size, 1), ("world_size", world_size, 1)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < low:
                raise InvalidArgumentError(f"{name} must be an integer >= {low}, got {v!r}")
        if not 0 <= rank < world_size:
            raise InvalidArgumentError(f"rank {rank} is not in [0, world_size={world_size})")
        self.window = history + horizon
        span = (self.window - 1) * stride + 1
        if span > len(positions):
            raise InvalidArgumentError(
                f"a window of {self.window} steps {stride} apart spans {span} steps; the sample dimension "
                f"has {len(positions)}"
            )
        self.positions = positions
        self.offsets = np.arange(self.window, dtype=np.int64) * stride
        self.num_samples = len(positions) - span + 1
        self.batch_size, self.shuffle, self.seed = int(batch_size), bool(shuffle), int(seed)
        self.drop_last, self.rank, self.world_size = bool(drop_last), int(rank), int(world_size)
        if drop_last:
            self.per_rank = self.num_samples // self.world_size
            self.num_batches = self.per_rank // self.batch_size
        else:
            self.per_rank = -(-self.num_samples // self.world_size)
            self.num_batches = -(-self.per_rank // self.batch_size)
        if self.num_batches == 0:
            raise InvalidArgumentError(
                f"{self.num_samples} samples over {self.world_size} rank(s) make no batch of {self.batch_size} "
                "(drop_last=True)"
            )

    def order(self, epoch: int) -> np.ndarray:
        """Every rank's samples of this epoch, before sharding (the same on every rank)."""
        n = self.num_samples
        if self.shuffle:
            order = np.random.default_rng([self.seed, int(epoch)]).permutation(n)
        else:
            order = np.arange(n)
        total = self.per_rank * self.world_size
        if total <= n:
            return order[:total]
        return np.concatenate([order, np.resize(order, total - n)])

    def rank_samples(self, epoch: int) -> np.ndarray:
        return self.order(epoch)[self.rank::self.world_size]

    def batch_samples(self, epoch: int, batch: int, samples: np.ndarray | None = None) -> np.ndarray:
        """The sample indices of batch ``batch`` of this rank (the last may be short without drop_last)."""
        if samples is None:
            samples = self.rank_samples(epoch)
        return samples[batch * self.batch_size:(batch + 1) * self.batch_size]

    def steps(self, samples: np.ndarray) -> np.ndarray:
        """[len(samples), window] positions along the sample dimension of the store."""
        return self.positions[samples[:, None] + self.offsets[None, :]]
