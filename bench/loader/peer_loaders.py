"""The benchmark's peer loaders (issue 32, rows 3 and 4), feeding the same model as
examples/train_era5.py, one JSON line out:

  peer_loaders.py xarray-cpu STORE [--workers 8] ...   xarray (engine="zarr", zarr-python) on CPU
                                                       workers -> torch DataLoader (pin_memory)
                                                       -> .cuda(): the hackathon's baseline
  peer_loaders.py zarr-gpu STORE ...                   zarr-python's GPU mode (zarr.config.enable_gpu,
                                                       KvikIO's GDSStore when installed), in a
                                                       DataLoader without workers (CUDA in the process)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from train_era5 import Forecaster  # noqa: E402


class XarrayWindows(torch.utils.data.Dataset):
    """(t, t+1) windows of `data` read with xarray + zarr-python in each worker."""

    def __init__(self, store: str, window: int):
        import zarr

        self.store, self.window = store, window
        self.n = zarr.open_array(store, path="data", mode="r").shape[0] - window + 1
        self.ds = None

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        import xarray as xr

        if self.ds is None:  # opened in the worker
            self.ds = xr.open_dataset(self.store, engine="zarr", chunks=None)
        return torch.from_numpy(self.ds["data"].isel(time=slice(i, i + self.window)).values)


class ZarrGpuWindows(torch.utils.data.Dataset):
    def __init__(self, store: str, window: int):
        import zarr

        try:
            from kvikio.zarr import GDSStore

            self.kind, st = "zarr-python enable_gpu + KvikIO GDSStore", GDSStore(store)
        except ImportError:
            self.kind, st = "zarr-python enable_gpu (LocalStore: no KvikIO)", zarr.storage.LocalStore(store)
        zarr.config.enable_gpu()
        self.arr = zarr.open_array(store=st, path="data", mode="r")
        self.window = window
        self.n = self.arr.shape[0] - window + 1

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.from_dlpack(self.arr[i:i + self.window])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("peer", choices=["xarray-cpu", "zarr-gpu"])
    p.add_argument("store")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--no-model", action="store_true")
    args = p.parse_args()
    dev = torch.device("cuda")
    if args.peer == "xarray-cpu":
        ds, kind = XarrayWindows(args.store, 2), "xarray + zarr-python (CPU) -> DataLoader -> .cuda()"
        prefetch_factor = 2
        dl = torch.utils.data.DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
                                         pin_memory=True, drop_last=True, persistent_workers=True,
                                         prefetch_factor=prefetch_factor)
        # The workers make workers x prefetch_factor batches before the first is asked
        # for: timing starts once those are consumed, so the figure is the workers'
        # steady rate, not the handing over of batches made during start-up.
        args.warmup = max(args.warmup, args.workers * prefetch_factor + 2)
    else:
        ds = ZarrGpuWindows(args.store, 2)
        kind = ds.kind
        dl = torch.utils.data.DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=0, drop_last=True)
    x0 = ds[0]
    channels = x0.shape[1]
    model = Forecaster(channels, 1, args.width).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    total = args.warmup + args.steps
    done, t0, wait = 0, None, 0.0
    while done < total:
        it = iter(dl)
        while done < total:
            w0 = time.perf_counter()
            try:
                x = next(it)
            except StopIteration:
                break
            x = x.to(dev, non_blocking=True)
            if done >= args.warmup:
                wait += time.perf_counter() - w0
            if done == args.warmup:
                torch.cuda.synchronize()
                t0, wait = time.perf_counter(), 0.0
            if args.no_model:
                torch.cuda.current_stream().synchronize()
            else:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = nn.functional.mse_loss(model(x[:, :1].float()).float(), x[:, 1].float())
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            done += 1
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    samples = args.steps * args.batch_size
    step_bytes = x0[0].numel() * x0.element_size()
    print(json.dumps({"samples_per_s": samples / seconds, "gb_per_s": samples * 2 * step_bytes / seconds / 1e9,
                      "seconds": seconds, "loader_wait_fraction": wait / seconds, "kind": kind,
                      "workers": args.workers if args.peer == "xarray-cpu" else 0, "model": not args.no_model}))


if __name__ == "__main__":
    main()
