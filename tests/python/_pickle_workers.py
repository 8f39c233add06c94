"""What test_pickle.py hands to worker processes started with spawn: importable by name
in a fresh interpreter (the test module itself would be imported there too, with all of
its imports, for every worker)."""

from __future__ import annotations

import numpy as np


class RowsDataset:
    """A map-style torch Dataset over a zarrgpu.Array: item i is row i as a CPU tensor.

    It holds the Array itself, so DataLoader workers started with spawn receive it pickled."""

    def __init__(self, array):
        self.array = array

    def __len__(self) -> int:
        return self.array.shape[0]

    def __getitem__(self, i: int):
        import torch

        return torch.from_numpy(np.ascontiguousarray(self.array[i]))


def worker_reads(array, index):
    """Reads array[index] in a worker and names the process, to prove it ran elsewhere."""
    import os

    return os.getpid(), array[index]
