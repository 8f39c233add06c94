"""Trains a small forecasting CNN on (t -> t+1) pairs of an ERA5-like Zarr store with
zarrgpu.loader, and prints its throughput.

    python examples/train_era5.py STORE [--variables data] [--steps 50] [--batch-size 8]
    torchrun --nproc-per-node=2 examples/train_era5.py STORE     # DDP, one GPU a rank

STORE is a group such as `zarrgpu generate era5` writes (`data [time, channel, lat, lon]`).
On a machine without a GPU it trains on the CPU (same loader, CPU tensors). With --json the
last line is a JSON summary (samples/s, GB/s read, the fraction of step time the loader kept
the model waiting) for bench/loader.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn

from zarrgpu.loader import Loader, LoaderDeviceWarning, Normalize


class Forecaster(nn.Module):
    """A few 3x3 convolutions from the history's channels to the next step's (a residual)."""

    def __init__(self, channels: int, history: int, width: int = 64, depth: int = 4):
        super().__init__()
        layers, c = [], channels * history
        for _ in range(depth - 1):
            layers += [nn.Conv2d(c, width, 3, padding=1), nn.GELU()]
            c = width
        layers.append(nn.Conv2d(c, channels, 3, padding=1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):  # x: [B, history, C, H, W] -> [B, C, H, W]
        b, t, c, h, w = x.shape
        return x[:, -1] + self.net(x.reshape(b, t * c, h, w))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("store")
    p.add_argument("--variables", default="data", help="comma-separated arrays (default: data)")
    p.add_argument("--steps", type=int, default=50, help="training steps (default 50)")
    p.add_argument("--warmup", type=int, default=3, help="steps not timed (default 3)")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--history", type=int, default=1)
    # One batch ahead: a ring of 2 leaves more of the memory budget to the reads' batches.
    p.add_argument("--prefetch", type=int, default=1)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--device", default="cuda")
    p.add_argument("--dtype", default=None, help="batch dtype, e.g. bfloat16 (default: the store's)")
    p.add_argument("--memory-budget", type=float, default=2.0, help="loader GPU budget in GiB (default 2)")
    p.add_argument("--stats-samples", type=int, default=16, help="samples for the normalisation statistics")
    p.add_argument("--synthetic", action="store_true", help="train on one batch kept on the device (upper bound)")
    p.add_argument("--no-model", action="store_true", help="iterate the loader only (no training)")
    p.add_argument("--json", action="store_true", help="print a JSON summary as the last line")
    args = p.parse_args()

    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    cuda = args.device.startswith("cuda") and torch.cuda.is_available()
    if distributed:
        local = int(os.environ.get("LOCAL_RANK", "0"))
        if cuda:
            torch.cuda.set_device(local)
        dist.init_process_group("nccl" if cuda else "gloo")
    rank = dist.get_rank() if distributed else 0
    device = torch.device("cuda", torch.cuda.current_device()) if cuda else torch.device("cpu")
    warnings.simplefilter("ignore", LoaderDeviceWarning)

    if cuda:  # the loader's GPU memory: free memory before it, against the least during the run
        torch.cuda.synchronize()
        free_before = low_free = torch.cuda.mem_get_info()[0]
    loader = Loader(args.store, args.variables.split(","), history=args.history, horizon=1,
                    batch_size=args.batch_size, shuffle=True, seed=0, device=str(device), prefetch=args.prefetch,
                    dtype=args.dtype, memory_budget=int(args.memory_budget * (1 << 30)))
    stats = loader.compute_stats(samples=args.stats_samples)
    loader.set_transforms([Normalize(stats)])
    channels = len(loader.channel_names)
    model = Forecaster(channels, args.history, args.width).to(device)
    if distributed:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[device.index] if cuda else None)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if cuda else torch.autocast("cpu", enabled=False)

    def step(x, y):
        with autocast:
            loss = nn.functional.mse_loss(model(x.float()).float(), y[:, 0].float())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    total = args.warmup + args.steps
    fixed = None
    done, t0, wait, loss = 0, None, 0.0, None
    epoch = 0
    while done < total:
        loader.set_epoch(epoch)
        it = iter(loader)
        while done < total:
            w0 = time.perf_counter()
            if args.synthetic and fixed is not None:
                batch = fixed
            else:
                try:
                    batch = next(it)
                except StopIteration:
                    break
                if args.synthetic:  # keep one batch on the device: the model alone
                    fixed = type(batch)(batch.data.clone(), batch.times, batch.samples, batch.steps, batch.epoch,
                                        batch.index, batch.history)
                    batch = fixed
            if done >= args.warmup:
                wait += time.perf_counter() - w0
            if done == args.warmup:
                if cuda:
                    torch.cuda.synchronize()
                t0, wait = time.perf_counter(), 0.0
            if not args.no_model:
                loss = step(batch.input, batch.target)
            elif cuda:
                torch.cuda.current_stream().synchronize()  # the batch is complete: count it read
                low_free = min(low_free, torch.cuda.mem_get_info()[0])
            done += 1
        loader.close()
        epoch += 1
    if cuda:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    world = dist.get_world_size() if distributed else 1
    samples = args.steps * args.batch_size * world
    read_bytes = samples * (args.history + 1) * loader.source.num_channels * \
        loader.source.spatial_shape[0] * loader.source.spatial_shape[1] * loader.source.variables[0].array.itemsize
    summary = {
        "samples_per_s": samples / seconds, "gb_per_s": read_bytes / seconds / 1e9, "seconds": seconds,
        "steps": args.steps, "batch_size": args.batch_size, "world_size": world, "device": str(device),
        "loader_wait_fraction": wait / seconds, "loss": loss.item() if loss is not None else None,
        "footprint": loader.footprint(), "synthetic": args.synthetic, "model": not args.no_model,
        # With --no-model nothing else allocates: the loader's whole device footprint, measured.
        "loader_gpu_bytes": (free_before - low_free) if cuda and args.no_model else None,
    }
    if rank == 0:
        print(f"train_era5: {samples} samples in {seconds:.2f} s on {world} x {device.type}: "
              f"{summary['samples_per_s']:.1f} samples/s, {summary['gb_per_s']:.2f} GB/s read, "
              f"waiting on the loader {100 * summary['loader_wait_fraction']:.1f}% of the time"
              + (f", loss {summary['loss']:.4f}" if loss is not None else ""))
        if args.json:
            print(json.dumps(summary))
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
