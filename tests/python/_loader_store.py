"""A small ERA5-like group for the loader tests: surface ``t2m [time, lat, lon]`` and pressure
level ``z [time, level, lat, lon]`` with coordinates, values that name their position."""

from __future__ import annotations

import numpy as np

import zarrgpu

T, LEVELS, LAT, LON = 23, (1000, 850, 500), 6, 8


def expected_fields():
    t = np.arange(T)[:, None, None]
    y = np.arange(LAT)[None, :, None]
    x = np.arange(LON)[None, None, :]
    t2m = (250 + t + 0.01 * y + 0.001 * x).astype(np.float32)
    z = np.stack([(1000 * (k + 1) + 10 * t + 0.01 * y + 0.001 * x) for k in range(len(LEVELS))], axis=1)
    return t2m, z.astype(np.float32)


def make_store(path, time_chunk=1, shards=None, zarr_format=3):
    """Writes the group; ``time_chunk`` steps per (inner) chunk, ``shards`` steps per shard."""
    g = zarrgpu.create_group(path, zarr_format=zarr_format)
    t2m, z = expected_fields()

    def array(name, data, dims, chunks, shard=None, attrs=None):
        a = zarrgpu.create_array(path, name, shape=data.shape, dtype=data.dtype, chunks=chunks, shards=shard,
                                 zarr_format=zarr_format, dimension_names=dims, attrs=attrs)
        a[...] = data
        return a

    sh = None if shards is None else (shards, LAT, LON)
    array("t2m", t2m, ["time", "lat", "lon"], (time_chunk, LAT, LON), sh)
    array("z", z, ["time", "level", "lat", "lon"], (time_chunk, len(LEVELS), LAT, LON),
          None if shards is None else (shards, len(LEVELS), LAT, LON))
    hours = np.arange(T, dtype=np.int64) * 6
    array("time", hours, ["time"], (T,), attrs={"units": "hours since 2020-01-01", "calendar": "proleptic_gregorian"})
    array("level", np.asarray(LEVELS, dtype=np.int64), ["level"], (len(LEVELS),))
    array("lat", np.linspace(90, -90, LAT), ["lat"], (LAT,))
    array("lon", np.linspace(0, 315, LON), ["lon"], (LON,))
    return g
