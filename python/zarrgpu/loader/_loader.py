"""zarrgpu.loader.Loader: batches of windows of a Zarr store for training, filled ahead of the
model on the loader's own CUDA stream (or, without a GPU, on the CPU), one batched read per
variable and batch."""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import threading
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .. import cuda_available
from ..errors import InvalidArgumentError, ZarrgpuError
from ._fill import VariableFill
from ._sampler import Sampler
from ._source import Source
from ._transforms import Normalize, RandomCrop, Stats

_MIN_READ_BYTES = 64 << 20  # below this a device read runs one chunk at a time (StagingConfig::within)


class LoaderDeviceWarning(UserWarning):
    """device="cuda" was asked for where there is no GPU (or a CPU-only build): CPU tensors instead."""


@dataclass
class Batch:
    """One batch. ``data``: ``[batch, time, channel, y, x]`` (or a dict per variable, ``as_dict``),
    valid until the next batch is taken from the loader (clone it to keep it). ``times``: the
    samples' coordinate values ``[batch, time]`` on the host; ``samples``: the samples' indices;
    ``steps``: their positions along the sample dimension."""

    data: Any
    times: np.ndarray
    samples: np.ndarray
    steps: np.ndarray
    epoch: int
    index: int
    history: int
    channels: list[str] = field(default_factory=list)

    @property
    def input(self):
        """The first ``history`` steps of each window."""
        return self._part(slice(None, self.history))

    @property
    def target(self):
        """The ``horizon`` steps after them."""
        return self._part(slice(self.history, None))

    def _part(self, s: slice):
        if isinstance(self.data, dict):
            return {k: v[:, s] for k, v in self.data.items()}
        return self.data[:, s]

    def __len__(self) -> int:
        return len(self.samples)


class DLPackTensor:
    """A batch tensor for any DLPack consumer (``cupy.from_dlpack``, ``jax.dlpack.from_dlpack``,
    ``np.from_dlpack`` on the CPU); the consumer's stream is ordered after the batch's fill."""

    __slots__ = ("_t",)

    def __init__(self, tensor):
        self._t = tensor

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._t.shape)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()

    def __dlpack__(self, *args, **kwargs):
        return self._t.__dlpack__(*args, **kwargs)


def _torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - torch is a dependency of the loader only
        raise ImportError("zarrgpu.loader needs PyTorch (pip install torch)") from e
    return torch


def _torch_dtype(torch, dtype: Any):
    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    name = str(np.dtype(dtype)) if not isinstance(dtype, str) else dtype
    name = {"bf16": "bfloat16", "fp16": "float16", "half": "float16", "fp32": "float32"}.get(name, name)
    got = getattr(torch, name, None)
    if not isinstance(got, torch.dtype):
        raise InvalidArgumentError(f"dtype {dtype!r} is not a torch dtype")
    return got


def _distributed(rank: int | None, world_size: int | None) -> tuple[int, int]:
    if rank is not None and world_size is not None:
        return int(rank), int(world_size)
    r, w = None, None
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            r, w = dist.get_rank(), dist.get_world_size()
    except ImportError:  # pragma: no cover
        pass
    if r is None:  # torchrun's environment, before init_process_group
        r, w = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    return (int(rank) if rank is not None else r), (int(world_size) if world_size is not None else w)


class Loader:
    """Batches of windows of steps from a Zarr store (see python/README.md, "Loader").

    ``Loader(source, variables, *, sample_dim="time", history=1, horizon=1, stride=1, select=None,
    batch_size=1, shuffle=True, seed=0, drop_last=True, rank=None, world_size=None, device="cuda",
    prefetch=2, transforms=(), dtype=None, as_dict=False, memory_budget=2 GiB, threads=0,
    verify_checksums=True, storage_options=None)``

    ``source``: a store path or URL (``https://``, ``s3://``), a :class:`zarrgpu.Group` or an
    xarray Dataset; ``storage_options`` (with a URL only) as :func:`zarrgpu.open` takes them.
    """

    def __init__(self, source: Any, variables: Sequence[str] | str, *, sample_dim: str = "time", history: int = 1,
                 horizon: int = 1, stride: int = 1, select: dict | None = None, batch_size: int = 1,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = True, rank: int | None = None,
                 world_size: int | None = None, device: Any = "cuda", prefetch: int = 2,
                 transforms: Sequence[Any] = (), dtype: Any = None, as_dict: bool = False,
                 memory_budget: int = 2 << 30, threads: int = 0, verify_checksums: bool = True,
                 storage_options: dict | None = None):
        torch = self._torch = _torch()
        self._active_ref = lambda: None  # the latest iterator, weakly: dropping it stops its thread
        if not isinstance(prefetch, int) or prefetch < 1:
            raise InvalidArgumentError(f"prefetch must be an integer >= 1, got {prefetch!r}")
        self.source = Source(source, variables, sample_dim, select, storage_options)
        rank, world_size = _distributed(rank, world_size)
        self.sampler = Sampler(self.source.positions, history, horizon, stride, batch_size, shuffle, seed, drop_last,
                               rank, world_size)
        self.history, self.horizon, self.stride = history, horizon, stride
        self.as_dict, self.threads, self.verify_checksums = bool(as_dict), int(threads), bool(verify_checksums)
        self.device = self._device(device)
        self.cuda = self.device.type == "cuda"

        store_dtypes = [torch.from_numpy(np.empty(0, p.array.dtype)).dtype for p in self.source.variables]
        self.dtype = _torch_dtype(torch, dtype) or (store_dtypes[0] if len(set(store_dtypes)) == 1
                                                    else torch.promote_types(*store_dtypes[:2]))
        direct_layout = self.as_dict or len(self.source.variables) == 1
        self._fills = [VariableFill(p, d, self.dtype, direct_layout) for p, d in zip(self.source.variables, store_dtypes)]
        self._normalize: Normalize | None = None
        self._transforms: list[Any] = []
        self.set_transforms(transforms)

        b, t = self.sampler.batch_size, self.sampler.window
        h, w = self.source.spatial_shape
        item = torch.empty(0, dtype=self.dtype).element_size()
        self.batch_bytes = b * t * self.source.num_channels * h * w * item
        self.slots = prefetch + 1
        staging_bytes = max(f.staging_elements(b * t) * torch.empty(0, dtype=f.store_dtype).element_size()
                            for f in self._fills)
        staging_bytes = -(-staging_bytes // 8) * 8  # viewed as any variable's dtype
        ring_bytes = self.slots * self.batch_bytes
        self.memory_budget = int(memory_budget)
        self.read_limit = self.memory_budget - ring_bytes - staging_bytes
        if self.read_limit < _MIN_READ_BYTES:
            gib = 1 << 30
            raise InvalidArgumentError(
                f"memory_budget {self.memory_budget / gib:.2f} GiB: the ring of {self.slots} batches "
                f"({ring_bytes / gib:.2f} GiB) and the staging buffer ({staging_bytes / gib:.2f} GiB) leave "
                f"{max(self.read_limit, 0) / gib:.2f} GiB for reading, under {_MIN_READ_BYTES >> 20} MiB: lower "
                "batch_size or prefetch, use dtype=torch.bfloat16, or raise memory_budget"
            )
        self._ring_bytes, self._staging_bytes = ring_bytes, staging_bytes
        self._ring = [self._alloc_batch() for _ in range(self.slots)]
        self._staging = torch.empty(staging_bytes, dtype=torch.uint8, device=self.device) if staging_bytes else None
        if self.cuda:
            with torch.cuda.device(self.device):
                self._stream = torch.cuda.Stream(self.device)
                self._ready = [torch.cuda.Event() for _ in range(self.slots)]
                self._consumed = [torch.cuda.Event() for _ in range(self.slots)]
        self._epoch, self._next_batch = 0, 0

    # ---- configuration ------------------------------------------------------------------
    def _device(self, device: Any):
        torch = self._torch
        dev = torch.device(device) if not isinstance(device, torch.device) else device
        if dev.type == "cuda":
            if not (cuda_available() and torch.cuda.is_available()):
                warnings.warn("zarrgpu.loader: no CUDA GPU (or a CPU-only build): batches are CPU tensors",
                              LoaderDeviceWarning, stacklevel=3)
                return torch.device("cpu")
            return torch.device("cuda", dev.index if dev.index is not None else torch.cuda.current_device())
        if dev.type != "cpu":
            raise InvalidArgumentError(f"device must be 'cuda', 'cuda:N' or 'cpu', got {device!r}")
        return dev

    def _alloc_batch(self):
        torch = self._torch
        b, t = self.sampler.batch_size, self.sampler.window
        h, w = self.source.spatial_shape
        if self.as_dict:
            return {p.name: torch.empty((b, t, p.channels, h, w), dtype=self.dtype, device=self.device)
                    for p in self.source.variables}
        return torch.empty((b, t, self.source.num_channels, h, w), dtype=self.dtype, device=self.device)

    def set_transforms(self, transforms: Sequence[Any]) -> None:
        """Replaces the transforms (between epochs): Normalize, RandomCrop, callables."""
        if self._active is not None and self._active.alive:
            raise InvalidArgumentError("set_transforms during an epoch: finish or close its iterator first")

        normalize, rest = None, []
        for tr in transforms:
            if isinstance(tr, Normalize):
                if normalize is not None:
                    raise InvalidArgumentError("transforms hold two Normalize")
                tr.check(self.source.channel_names)
                normalize = tr
            elif isinstance(tr, RandomCrop):
                tr.check(self.source.spatial_shape)
                rest.append(tr)
            elif callable(tr):
                rest.append(tr)
            else:
                raise InvalidArgumentError(f"a transform must be Normalize, RandomCrop or a callable, got {tr!r}")
        if normalize is not None and not self.dtype.is_floating_point:
            raise InvalidArgumentError(f"Normalize needs a floating-point dtype, the batches are {self.dtype}")
        if normalize is not None and any(not f.direct and not f.store_dtype.is_floating_point for f in self._fills) \
                and self.dtype.itemsize < 4:
            raise InvalidArgumentError("Normalize to a 16-bit dtype needs floating-point variables")
        self._normalize, self._transforms = normalize, rest
        self._norm_tensors = None
        if normalize is not None:
            torch = self._torch
            mean = torch.tensor(normalize.stats.mean, dtype=torch.float32, device=self.device)
            std = torch.tensor(normalize.stats.std, dtype=torch.float32, device=self.device)
            self._norm_tensors = (mean, std)

    # ---- epochs and state -----------------------------------------------------------------
    def __len__(self) -> int:
        return self.sampler.num_batches

    @property
    def epoch(self) -> int:
        return self._epoch

    @property
    def channel_names(self) -> list[str]:
        """The channels in order: variables as given; within one, C order over its level-like dims."""
        return self.source.channel_names

    def set_epoch(self, epoch: int) -> None:
        """Starts epoch ``epoch`` (its permutation) at its first batch, from the next iterator on."""
        self._epoch, self._next_batch = int(epoch), 0

    def state_dict(self) -> dict:
        """Where the loader stands: the next iterator resumes after the last batch handed out."""
        s = self.sampler
        return {"epoch": self._epoch, "batch": self._next_batch, "seed": s.seed, "shuffle": s.shuffle,
                "num_samples": s.num_samples, "batch_size": s.batch_size, "world_size": s.world_size,
                "rank": s.rank, "drop_last": s.drop_last}

    def load_state_dict(self, state: dict) -> None:
        s = self.sampler
        for k in ("seed", "shuffle", "num_samples", "batch_size", "world_size", "drop_last"):
            if k in state and state[k] != getattr(s, k):
                raise InvalidArgumentError(f"state_dict has {k}={state[k]!r}, this loader {getattr(s, k)!r}")
        batch = int(state["batch"])
        if not 0 <= batch <= len(self):
            raise InvalidArgumentError(f"state_dict's batch {batch} is not in [0, {len(self)}]")
        self._epoch, self._next_batch = int(state["epoch"]), batch % len(self) if batch == len(self) else batch

    def footprint(self) -> dict:
        """Bytes the loader holds or may hold on its device: the batch ring, the staging buffer,
        and the limit given to its reads (staging copies, decoded scratch, decoder temp)."""
        return {"ring": self._ring_bytes, "staging": self._staging_bytes, "read_limit": self.read_limit,
                "budget": self.memory_budget, "device": str(self.device)}

    # ---- iteration ------------------------------------------------------------------------
    @property
    def _active(self) -> "_EpochIterator | None":
        return self._active_ref()

    def __iter__(self) -> "_EpochIterator":
        if self._active is not None:
            self._active.close()
        it = _EpochIterator(self, self._epoch, self._next_batch)
        self._active_ref = weakref.ref(it)
        return it

    def iter_dlpack(self) -> Iterator[Batch]:
        """Like iterating the loader, with ``data`` as :class:`DLPackTensor` (or a dict of them)
        for consumers other than PyTorch."""
        for b in self:
            b.data = ({k: DLPackTensor(v) for k, v in b.data.items()} if isinstance(b.data, dict)
                      else DLPackTensor(b.data))
            yield b

    def close(self) -> None:
        """Stops the current iterator's thread (also when the iterator is dropped)."""
        if self._active is not None:
            self._active.close()

    def __del__(self):
        with contextlib.suppress(Exception):
            self.close()

    # ---- filling one batch (the producer thread) -------------------------------------------
    def _read(self, plan, uniq: np.ndarray, out) -> None:
        key = (uniq.astype(np.int64),) + plan.rest
        if self.cuda:
            plan.array.read(key, out=out, stream=self._stream, threads=self.threads,
                            verify_checksums=self.verify_checksums, device_memory_limit=self.read_limit)
        else:
            plan.array.read(key, out=out.numpy(), threads=self.threads, verify_checksums=self.verify_checksums)

    def _normalize_rows(self, plan, rows) -> None:
        mean, std = self._norm_tensors
        c = slice(plan.first_channel, plan.first_channel + plan.channels)
        rows.sub_(mean[c].view(1, -1, 1, 1).to(rows.dtype)).div_(std[c].view(1, -1, 1, 1).to(rows.dtype))

    def _fill(self, slot: int, epoch: int, index: int, samples_all: np.ndarray, raw: bool = False) -> Batch:
        torch = self._torch
        samples = self.sampler.batch_samples(epoch, index, samples_all)
        steps = self.sampler.steps(samples)
        b = len(samples)
        buf = self._ring[slot]
        in_ring = self.dtype.itemsize >= 4  # else rows normalise in staging, before the cast
        ctx = torch.cuda.stream(self._stream) if self.cuda else contextlib.nullcontext()
        with ctx:
            if self.cuda:
                self._stream.wait_event(self._consumed[slot])
            for f in self._fills:
                p = f.plan
                dest = buf[p.name][:b] if self.as_dict else buf[:b, :, p.first_channel:p.first_channel + p.channels]
                staging = self._staging.view(f.store_dtype) if self._staging is not None and not f.direct else None
                norm = (self._normalize_rows if (not raw and self._normalize is not None and not in_ring
                                                 and not f.direct) else None)
                f.fill(torch, dest, staging, steps, self._read, norm)
            data = {k: v[:b] for k, v in buf.items()} if self.as_dict else buf[:b]
            if not raw and self._normalize is not None and in_ring:
                mean, std = self._norm_tensors
                for p in self.source.variables:
                    c = slice(p.first_channel, p.first_channel + p.channels)
                    x = data[p.name] if self.as_dict else data[:, :, c]
                    x.sub_(mean[c].view(1, 1, -1, 1, 1).to(x.dtype)).div_(std[c].view(1, 1, -1, 1, 1).to(x.dtype))
            batch = Batch(data, self.source.labels[steps], samples, steps, epoch, index, self.history,
                          self.source.channel_names)
            if not raw:
                rng = np.random.default_rng([self.sampler.seed, epoch, index, self.sampler.rank, 7])
                for tr in self._transforms:
                    out = tr(batch, rng) if isinstance(tr, RandomCrop) else tr(batch)
                    batch = out if out is not None else batch
            if self.cuda:
                self._ready[slot].record(self._stream)
        return batch

    # ---- statistics ---------------------------------------------------------------------
    def compute_stats(self, samples: int = 256, seed: int = 0, path: str | os.PathLike | None = None) -> Stats:
        """Per-channel mean and std over ``samples`` random samples of the whole dataset (every
        rank draws the same), read through the loader's own buffers; saved to ``path`` if given."""
        if self._active is not None and self._active.alive:
            raise InvalidArgumentError("compute_stats during an epoch: finish or close its iterator first")
        torch = self._torch
        n = min(int(samples), self.sampler.num_samples)
        chosen = np.sort(np.random.default_rng([int(seed), 11]).choice(self.sampler.num_samples, n, replace=False))
        c = self.source.num_channels
        count, mean, m2 = 0, np.zeros(c), np.zeros(c)
        bs = self.sampler.batch_size
        for start in range(0, n, bs):
            part = chosen[start:start + bs]
            batch = self._fill(0, 0, 0, part, raw=True)
            if self.cuda:
                torch.cuda.current_stream(self.device).wait_event(self._ready[0])
            for ch in range(c):
                p = next(v for v in self.source.variables if v.first_channel <= ch < v.first_channel + v.channels)
                x = batch.data[p.name][:, :, ch - p.first_channel] if self.as_dict else batch.data[:, :, ch]
                var, mu = torch.var_mean(x.float(), correction=0)
                k = x.numel()
                mu, var = float(mu), float(var)
                # Chan et al.'s pairwise update: batches combine without a float32 sum of everything.
                delta = mu - mean[ch]
                tot = count + k
                mean[ch] += delta * k / tot
                m2[ch] += var * k + delta * delta * count * k / tot
            count += k
            if self.cuda:
                self._consumed[0].record(torch.cuda.current_stream(self.device))
        std = np.sqrt(m2 / max(count, 1))
        std[std == 0] = 1.0
        stats = Stats(self.source.channel_names, mean, std, n)
        if path is not None:
            stats.save(path)
        return stats


class _EpochIterator:
    """One pass over the batches of an epoch from a starting batch; a background thread fills
    the ring ahead of the consumer. An error filling a batch is raised by the ``next()`` that
    would have returned it; the following ``next()`` goes on with the batch after it."""

    def __init__(self, loader: Loader, epoch: int, start: int):
        self.loader, self.epoch, self.next_index = loader, epoch, start
        self.num = len(loader)
        self.samples = loader.sampler.rank_samples(epoch)
        self.free: queue.Queue = queue.Queue()
        for s in range(loader.slots):
            self.free.put(s)
        self.ready: queue.Queue = queue.Queue()
        self.stop = threading.Event()
        self.held: int | None = None
        self.alive = True
        # The thread holds the iterator weakly, so that dropping it (a loop left early) ends the
        # thread rather than keeping the loader alive.
        self.thread = threading.Thread(target=_produce, args=(weakref.ref(self), start, self.num),
                                       name="zarrgpu-loader", daemon=True)
        _live.add(self)
        self.thread.start()

    def __iter__(self):
        return self

    def _release(self) -> None:
        if self.held is not None:
            if self.loader.cuda:  # the consumer's queued work on the batch comes before its reuse
                self.loader._consumed[self.held].record(self.loader._torch.cuda.current_stream(self.loader.device))
            self.free.put(self.held)
            self.held = None

    def __next__(self) -> Batch:
        loader = self.loader
        self._release()
        if self.next_index >= self.num or not self.alive:
            self._finish()
            raise StopIteration
        k, slot, batch, err = self.ready.get()
        self.next_index = k + 1
        if loader._active is self:
            loader._epoch, loader._next_batch = self.epoch, k + 1
        if err is not None:
            self.free.put(slot)
            raise _with_batch(err, loader, self.epoch, k, self.samples)
        if loader.cuda:
            torch = loader._torch
            current = torch.cuda.current_stream(loader.device)
            current.wait_event(loader._ready[slot])
            for t in (batch.data.values() if isinstance(batch.data, dict) else [batch.data]):
                if isinstance(t, torch.Tensor):
                    t.record_stream(current)
        self.held = slot
        return batch

    def _finish(self) -> None:
        loader = self.loader
        if loader._active is self and self.next_index >= self.num:
            loader._next_batch = 0  # the epoch is done; set_epoch picks the next permutation
        self.close()

    def close(self) -> None:
        if not self.alive:
            return
        self.alive = False
        self.stop.set()
        if threading.current_thread() is not self.thread:
            self.thread.join()
        if self.loader.cuda:
            self.loader._stream.synchronize()  # the loader's own stream only: its buffers are free again

    def __del__(self):
        with contextlib.suppress(Exception):
            self.close()


def _produce(ref: "weakref.ref[_EpochIterator]", start: int, num: int) -> None:
    """The producer thread: fills batches start.. into free ring slots, in order."""
    for k in range(start, num):
        slot = None
        while slot is None:
            it = ref()
            if it is None or it.stop.is_set():
                return
            free = it.free
            del it
            try:
                slot = free.get(timeout=0.1)
            except queue.Empty:
                pass
        it = ref()
        if it is None or it.stop.is_set():
            return
        try:
            item = (k, slot, it.loader._fill(slot, it.epoch, k, it.samples), None)
        except BaseException as e:  # handed to the consumer, with the batch it belongs to
            item = (k, slot, None, e)
        it.ready.put(item)
        del it, item


_live: "weakref.WeakSet[_EpochIterator]" = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    """No producer thread may still be inside a read while the interpreter shuts down."""
    for it in list(_live):
        with contextlib.suppress(Exception):
            it.close()


def _with_batch(err: BaseException, loader: Loader, epoch: int, index: int, samples_all: np.ndarray) -> BaseException:
    """The error with the batch it broke: epoch, batch, samples and their steps' coordinates."""
    samples = loader.sampler.batch_samples(epoch, index, samples_all)
    steps = loader.sampler.steps(samples)
    where = (f"loader: epoch {epoch}, batch {index} of rank {loader.sampler.rank}, samples {samples.tolist()} "
             f"({loader.source.sample_dim} {loader.source.labels[steps[:, 0]].tolist()}...)")
    if isinstance(err, ZarrgpuError):
        new = type(err)(f"{err} [{where}]")
        for a in ("kind", "cause", "array", "chunk_key", "codec", "store"):
            setattr(new, a, getattr(err, a, ""))
        new.epoch, new.batch, new.samples = epoch, index, samples
        new.__cause__ = err
        return new
    if hasattr(err, "add_note"):
        err.add_note(where)
    return err
