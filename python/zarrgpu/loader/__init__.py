"""zarrgpu.loader: training batches from Zarr, read and decoded ahead of the model.

    from zarrgpu.loader import Loader, Normalize
    loader = Loader("era5.zarr", ["t2m", "z"], select={"level": [500, 850]}, history=1, horizon=1,
                    batch_size=16, device="cuda", dtype="bfloat16")
    stats = loader.compute_stats(samples=64, path="run/stats.json")
    loader.set_transforms([Normalize(stats)])
    for epoch in range(10):
        loader.set_epoch(epoch)
        for batch in loader:            # batch.data: [16, 2, channels, lat, lon] on the GPU
            loss = model(batch.input, batch.target)

See python/README.md ("Loader") for the semantics.
"""

from ._loader import Batch, DLPackTensor, Loader, LoaderDeviceWarning
from ._transforms import Normalize, RandomCrop, Stats

__all__ = ["Loader", "Batch", "DLPackTensor", "LoaderDeviceWarning", "Normalize", "RandomCrop", "Stats"]
