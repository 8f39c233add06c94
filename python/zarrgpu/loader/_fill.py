"""Fills one batch buffer: one batched read per variable, then a gather on the device.

The steps a batch needs are read once each (windows of neighbouring samples share steps),
in ONE read per variable: the sample dimension is indexed with a list of positions
(``Array.read``'s orthogonal indexing), so every chunk the batch touches is planned, fetched
and decoded in one pipeline. Where the sample dimension has one step per (inner) chunk the
list is in order of first use in the batch: rows then land where the batch wants them, and
only a repeated step costs a copy (done in place, last row first: a step's first use is never
after a later row). Where chunks hold several steps, the list is sorted, so that each chunk
is one run of the plan and decoded once, and rows are gathered into place.

A variable reads straight into the batch buffer when its rows are contiguous there (one
variable, or one buffer per variable) in the store's dtype; else into a staging buffer in
the store's dtype (sized for the largest variable's batch), whose rows are normalised there
when the batch's dtype is narrower, then cast into their channels of the batch.
"""

from __future__ import annotations

import numpy as np

from ._source import VariablePlan


def first_use_order(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unique steps in order of first use, each entry's row among them): row[j] <= j."""
    uniq, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return uniq[order], rank[inverse.reshape(-1)]


def sorted_order(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    uniq, inverse = np.unique(flat, return_inverse=True)
    return uniq, inverse.reshape(-1)


def expand_in_place(rows, row_of: np.ndarray) -> None:
    """rows[j] = rows[row_of[j]] for every j, given rows[:n_unique] in first-use order.
    Last row first: row_of[j] <= j, and a row is read only before it is overwritten."""
    for j in range(len(row_of) - 1, -1, -1):
        r = int(row_of[j])
        if r != j:
            rows[j].copy_(rows[r])


class VariableFill:
    """How one variable's rows reach the batch buffer."""

    def __init__(self, plan: VariablePlan, torch_dtype, out_dtype, direct_layout: bool):
        self.plan = plan
        self.store_dtype = torch_dtype
        self.first_use = plan.sample_chunk == 1
        self.direct = direct_layout and out_dtype == torch_dtype and self.first_use
        h, w = plan.spatial_shape
        self.row_shape = (plan.channels, h, w)
        self.read_shape = plan.channel_shape + (h, w)

    def staging_elements(self, rows: int) -> int:
        return 0 if self.direct else rows * int(np.prod(self.row_shape))

    def fill(self, torch, dest, staging, steps: np.ndarray, read, normalize_rows) -> None:
        """dest: the batch's [B, T, C_v, H, W] view for this variable; steps: [B, T] positions."""
        b, t = steps.shape
        flat = steps.reshape(-1)
        uniq, row_of = (first_use_order if self.first_use else sorted_order)(flat)
        n = len(uniq)
        if self.direct:
            rows = dest.view(b * t, *self.row_shape)
            read(self.plan, uniq, rows[:n].view(n, *self.read_shape))
            expand_in_place(rows, row_of)
            return
        rows = staging[: (b * t if self.first_use else n) * int(np.prod(self.row_shape))].view(-1, *self.row_shape)
        read(self.plan, uniq, rows[:n].view(n, *self.read_shape))
        if normalize_rows is not None:
            normalize_rows(self.plan, rows[:n])
        if self.first_use:
            expand_in_place(rows, row_of)
            dest.copy_(rows.view(b, t, *self.row_shape))
        else:
            flat_dest = dest.reshape(b * t, *self.row_shape) if dest.is_contiguous() else None
            for j in range(b * t):
                target = flat_dest[j] if flat_dest is not None else dest[j // t, j % t]
                target.copy_(rows[int(row_of[j])])
