"""zarrgpu.loader on the CPU (CI has no GPU): batches against NumPy, epochs, shards per rank,
resume, transforms, statistics, failures, bad arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
zarrgpu = pytest.importorskip("zarrgpu")
from zarrgpu.loader import Loader, LoaderDeviceWarning, Normalize, RandomCrop, Stats  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _loader_store import LEVELS, LON, LAT, T, expected_fields, make_store  # noqa: E402

warnings.simplefilter("ignore", LoaderDeviceWarning)


@pytest.fixture(params=[(1, None), (4, None), (1, 8)], ids=["step_chunks", "four_step_chunks", "sharded"])
def store(tmp_path, request):
    time_chunk, shards = request.param
    path = tmp_path / "era5.zarr"
    make_store(path, time_chunk=time_chunk, shards=shards)
    return path


def expected_batch(steps: np.ndarray, levels=(850, 500)) -> np.ndarray:
    """[B, T, 1 + len(levels), LAT, LON]: t2m then z at `levels`, as the loader stacks them."""
    t2m, z = expected_fields()
    k = [LEVELS.index(v) for v in levels]
    out = np.concatenate([t2m[steps][:, :, None], z[steps][:, :, k]], axis=2)
    return out


def loader(path, **kw):
    args = dict(select={"level": [850, 500]}, history=2, horizon=1, stride=2, batch_size=4, device="cpu")
    args.update(kw)
    return Loader(path, ["t2m", "z"], **args)


def test_batches_match_numpy_in_order(store):
    ld = loader(store, shuffle=False, drop_last=False)
    span = (3 - 1) * 2 + 1
    n = T - span + 1
    assert len(ld) == -(-n // 4)
    assert ld.channel_names == ["t2m", "z[level=850]", "z[level=500]"]
    seen = []
    for i, b in enumerate(ld):
        assert b.index == i and b.epoch == 0
        want_steps = b.samples[:, None] + np.array([0, 2, 4])[None, :]
        np.testing.assert_array_equal(b.steps, want_steps)
        assert b.data.shape == (len(b), 3, 3, LAT, LON) and b.data.dtype == torch.float32
        np.testing.assert_array_equal(b.data.numpy(), expected_batch(b.steps))
        np.testing.assert_array_equal(b.input.numpy(), expected_batch(b.steps)[:, :2])
        np.testing.assert_array_equal(b.target.numpy(), expected_batch(b.steps)[:, 2:])
        # Coordinates on the host: CF hours decoded to datetime64.
        assert b.times.shape == b.steps.shape
        assert b.times[0, 0] == np.datetime64("2020-01-01T00") + np.timedelta64(6 * int(b.steps[0, 0]), "h")
        seen.extend(b.samples.tolist())
    assert seen == list(range(n))  # the last batch is short (drop_last=False)


def test_overlapping_windows_and_repeats_in_a_batch(store):
    # stride 1, history 3: neighbouring samples share steps; each batch's steps are read once
    # and gathered (repeats expanded) into place.
    ld = Loader(store, "z", history=3, horizon=2, stride=1, batch_size=6, shuffle=True, seed=3, device="cpu")
    _, z = expected_fields()
    for b in ld:
        np.testing.assert_array_equal(b.data.numpy(), z[b.steps])


def test_shuffle_is_seeded_per_epoch_and_len(store):
    a, b = loader(store, seed=5), loader(store, seed=5)
    first = [x.samples.copy() for x in a]
    assert [x.samples.tolist() for x in b] == [f.tolist() for f in first]
    assert len(first) == len(a) == (T - 4) // 4  # drop_last
    a.set_epoch(1)
    second = [x.samples.copy() for x in a]
    assert [f.tolist() for f in first] != [s.tolist() for s in second]
    assert len(set(np.concatenate(second).tolist())) == len(second) * 4  # no repeats within an epoch


def test_rank_shares_are_disjoint_and_equal(store):
    loaders = [loader(store, rank=r, world_size=3, seed=1) for r in range(3)]
    lens = {len(x) for x in loaders}
    assert len(lens) == 1
    got = [np.concatenate([b.samples.copy() for b in x]) for x in loaders]
    assert len({len(g) for g in got}) == 1
    allv = np.concatenate(got)
    assert len(set(allv.tolist())) == len(allv)
    # Interleaved from one permutation: rank r has the permutation's r-th, r+3-th, ... sample.
    order = loaders[0].sampler.order(0)
    for r, g in enumerate(got):
        np.testing.assert_array_equal(g, order[r::3][:len(g)])


def test_padding_without_drop_last_gives_equal_shares(store):
    loaders = [loader(store, rank=r, world_size=4, drop_last=False, shuffle=False) for r in range(4)]
    got = [np.concatenate([b.samples.copy() for b in x]) for x in loaders]
    assert len({len(g) for g in got}) == 1
    n = T - 4
    assert set(np.concatenate(got).tolist()) == set(range(n))


def test_state_dict_resumes_exactly_mid_epoch(store):
    full = loader(store, seed=9)
    full.set_epoch(2)
    want = [(b.samples.copy(), b.data.clone()) for b in full]
    part = loader(store, seed=9)
    part.set_epoch(2)
    it = iter(part)
    for _ in range(2):
        next(it)
    state = json.loads(json.dumps(part.state_dict()))  # survives a checkpoint as JSON
    assert state["epoch"] == 2 and state["batch"] == 2
    resumed = loader(store, seed=9)
    resumed.load_state_dict(state)
    rest = [(b.samples.copy(), b.data.clone()) for b in resumed]
    assert len(rest) == len(want) - 2
    for (ws, wd), (gs, gd) in zip(want[2:], rest):
        np.testing.assert_array_equal(ws, gs)
        assert torch.equal(wd, gd)
    # After a finished epoch the next iterator starts the (same) epoch again.
    assert resumed.state_dict()["batch"] == 0
    with pytest.raises(zarrgpu.InvalidArgumentError, match="batch_size"):
        loader(store, seed=9, batch_size=2).load_state_dict(state)


def test_dict_per_variable_bf16_and_normalize(store):
    t2m, z = expected_fields()
    stats = Stats(["t2m", "z[level=850]", "z[level=500]"], [260.0, 2100.0, 3100.0], [5.0, 60.0, 70.0])
    ld = loader(store, as_dict=True, dtype="bfloat16", transforms=[Normalize(stats)], shuffle=False)
    b = next(iter(ld))
    assert set(b.data) == {"t2m", "z"}
    assert b.data["t2m"].dtype == torch.bfloat16 and b.data["t2m"].shape == (4, 3, 1, LAT, LON)
    want_t = (t2m[b.steps][:, :, None] - 260.0) / 5.0
    want_z = (z[b.steps][:, :, [1, 2]] - np.array([2100.0, 3100.0])[:, None, None]) / np.array([60.0, 70.0])[:, None, None]
    np.testing.assert_allclose(b.data["t2m"].float().numpy(), want_t, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(b.data["z"].float().numpy(), want_z, rtol=1e-2, atol=1e-2)
    # float32 batches normalise in place, exactly as NumPy in float32.
    ld32 = loader(store, transforms=[Normalize(mean=stats.mean, std=stats.std)], shuffle=False)
    b = next(iter(ld32))
    want = (expected_batch(b.steps) - stats.mean[:, None, None].astype(np.float32)) / stats.std[:, None, None].astype(np.float32)
    np.testing.assert_allclose(b.data.numpy(), want, rtol=1e-6, atol=1e-5)


def test_compute_stats_matches_numpy_and_round_trips(store, tmp_path):
    ld = loader(store, history=1, horizon=0, stride=1)
    stats = ld.compute_stats(samples=1000, path=tmp_path / "stats.json")  # every step
    full = expected_batch(np.arange(T)[:, None])[:, 0]
    np.testing.assert_allclose(stats.mean, full.mean(axis=(0, 2, 3)), rtol=1e-6)
    np.testing.assert_allclose(stats.std, full.std(axis=(0, 2, 3)), rtol=1e-4)
    back = Stats.load(tmp_path / "stats.json")
    assert back.channels == ld.channel_names and np.array_equal(back.mean, stats.mean)
    ld.set_transforms([Normalize(tmp_path / "stats.json")])
    x = torch.cat([b.data for b in ld])
    assert abs(float(x.mean())) < 0.5
    with pytest.raises(zarrgpu.InvalidArgumentError, match="channels"):
        loader(store, select={"level": [500]}, transforms=[Normalize(stats)])


def test_random_crop_is_seeded_and_resumes(store):
    def run(start=None):
        ld = loader(store, seed=4, transforms=[RandomCrop((3, 5))])
        if start:
            ld.load_state_dict(start)
        return [(b.steps.copy(), b.data.clone()) for b in ld]

    a, b = run(), run()
    assert all(torch.equal(x[1], y[1]) for x, y in zip(a, b))
    assert a[0][1].shape[-2:] == (3, 5)
    state = loader(store, seed=4).state_dict() | {"batch": 1}
    c = run(state)
    assert all(torch.equal(x[1], y[1]) for x, y in zip(a[1:], c))
    full = expected_batch(a[0][0])
    crop = a[0][1].numpy()
    # The crop is a window of the batch.
    hits = [(y, x) for y in range(LAT - 2) for x in range(LON - 4)
            if np.array_equal(full[..., y:y + 3, x:x + 5], crop)]
    assert hits
    per = loader(store, transforms=[RandomCrop(2, per_sample=True)])
    assert next(iter(per)).data.shape == (4, 3, 3, 2, 2)


def test_user_callable_and_dlpack_iterator(store):
    calls = []

    def double(batch):
        calls.append(batch.index)
        batch.data.mul_(2)

    ld = loader(store, transforms=[double], shuffle=False)
    for b in ld.iter_dlpack():
        x = np.from_dlpack(b.data)
        np.testing.assert_array_equal(x, 2 * expected_batch(b.steps))
    assert calls == list(range(len(ld)))


def test_xarray_dataset_source(store):
    xr = pytest.importorskip("xarray")
    ds = xr.open_dataset(store, engine="zarrgpu")
    a = [b.data.clone() for b in loader(ds, seed=2)]
    b = [b.data.clone() for b in loader(store, seed=2)]
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    with pytest.raises(zarrgpu.InvalidArgumentError, match="indexed"):
        loader(ds.isel(time=slice(0, 10)))


def test_select_sample_dimension_restricts_steps(store):
    ld = loader(store, select={"level": [850, 500], "time": slice(np.datetime64("2020-01-02"), None)}, shuffle=False)
    first = next(iter(ld))
    assert first.steps[0, 0] == 4  # 2020-01-02T00 is step 4 (6-hourly)
    ld = loader(store, select={"level": [850, 500], "time": slice(np.datetime64("2020-01-02"), None)},
                shuffle=False, drop_last=False)
    assert max(b.steps.max() for b in ld) == T - 1


def test_corrupt_chunk_raises_in_the_loop_and_the_loader_goes_on(tmp_path):
    path = tmp_path / "era5.zarr"
    make_store(path)
    ld = loader(path, shuffle=False, batch_size=2)
    # Corrupt the chunk of step 9 of z: batch 4 (samples 8, 9) and 5 (samples 10, 11 use step 14/15: fine).
    victim = path / "z" / "c" / "9" / "0" / "0" / "0"
    victim.write_bytes(b"\x28\xb5\x2f\xfd garbage that is no zstd frame")
    it = iter(ld)
    got, errors = [], []
    while True:
        try:
            b = next(it)
        except StopIteration:
            break
        except zarrgpu.CorruptDataError as e:
            errors.append(e)
            continue
        got.append(b.index)
    assert errors, "the corrupt chunk did not raise"
    e = errors[0]
    assert "z/c/9/0/0/0" in str(e) and e.chunk_key.endswith("z/c/9/0/0/0") and e.array.endswith("z")
    assert "samples" in str(e) and e.samples.size > 0
    bad = {int(b) for err in errors for b in [err.batch]}
    assert sorted(got + sorted(bad)) == list(range(len(ld)))  # every other batch came
    # The next epoch runs too (and raises again at the same batch).
    ld.set_epoch(1)
    with pytest.raises(zarrgpu.CorruptDataError):
        for _ in ld:
            pass


def test_bad_arguments_fail_at_construction(store):
    bad = zarrgpu.InvalidArgumentError
    with pytest.raises(bad, match="spans"):
        loader(store, history=10, horizon=5, stride=2)
    with pytest.raises(bad, match="unknown variable"):
        Loader(store, ["t2m", "nope"], device="cpu")
    with pytest.raises(bad, match="batch_size"):
        loader(store, batch_size=0)
    with pytest.raises(bad, match="no batch"):
        loader(store, batch_size=100)
    with pytest.raises(bad, match="select"):
        loader(store, select={"height": [1]})
    with pytest.raises(bad, match="not a level"):
        loader(store, select={"level": [700]})
    with pytest.raises(bad, match="memory_budget"):
        loader(store, memory_budget=1 << 20)
    with pytest.raises(bad, match="prefetch"):
        loader(store, prefetch=0)
    with pytest.raises(bad, match="rank"):
        loader(store, rank=2, world_size=2)
    with pytest.raises(bad, match="group"):
        Loader(store / "t2m", "t2m", device="cpu")


def test_footprint_and_device_fallback(store):
    with pytest.warns(LoaderDeviceWarning) if not zarrgpu.cuda_available() else warnings.catch_warnings():
        ld = loader(store, device="cuda", prefetch=3)
    f = ld.footprint()
    assert f["ring"] == 4 * 4 * 3 * 3 * LAT * LON * 4
    assert f["ring"] + f["staging"] + f["read_limit"] == f["budget"] == 2 << 30


def test_two_processes_with_gloo(tmp_path):
    """Two ranks through torch.distributed (gloo): equal disjoint shares of one permutation."""
    pytest.importorskip("torch.distributed")
    path = tmp_path / "era5.zarr"
    make_store(path)
    script = Path(__file__).parent / "loader_ranks.py"
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(29500 + os.getpid() % 1000), WORLD_SIZE="2")
    procs = [subprocess.Popen([sys.executable, str(script), str(path), str(tmp_path / f"rank{r}.json")],
                              env=dict(env, RANK=str(r)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in range(2)]
    for p in procs:
        out, _ = p.communicate(timeout=240)
        assert p.returncode == 0, out
    res = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    assert res[0]["order"] == res[1]["order"]  # the same permutation on both ranks
    assert res[0]["len"] == res[1]["len"] and len(res[0]["samples"]) == len(res[1]["samples"])
    assert not set(res[0]["samples"]) & set(res[1]["samples"])
    assert res[0]["rank"] == 0 and res[1]["rank"] == 1 and res[0]["world_size"] == 2
    assert res[0]["all_gathered_ok"] and res[1]["all_gathered_ok"]


def test_example_trains_on_the_cpu(tmp_path):
    """examples/train_era5.py (scripts/run.sh's last step) runs and reports its throughput."""
    path = tmp_path / "era5.zarr"
    make_store(path)
    script = Path(__file__).resolve().parents[2] / "examples" / "train_era5.py"
    r = subprocess.run([sys.executable, str(script), str(path), "--variables", "t2m,z", "--steps", "3",
                        "--warmup", "1", "--batch-size", "2", "--width", "8", "--stats-samples", "4", "--device",
                        "cpu", "--json"], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "samples/s" in r.stdout
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    assert summary["samples_per_s"] > 0 and summary["world_size"] == 1 and summary["loss"] is not None
