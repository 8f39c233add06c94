"""One rank of test_loader.py's two-process test: joins a gloo group, iterates an epoch with
rank and world size taken from torch.distributed, checks the ranks' samples through
all_gather, writes what it saw as JSON. Usage: loader_ranks.py STORE OUT.json (env: RANK...)."""

import json
import sys
import warnings

import torch
import torch.distributed as dist

from zarrgpu.loader import Loader, LoaderDeviceWarning

warnings.simplefilter("ignore", LoaderDeviceWarning)
dist.init_process_group("gloo")
store, out = sys.argv[1], sys.argv[2]
ld = Loader(store, ["t2m", "z"], select={"level": [850]}, batch_size=2, seed=7, device="cpu")
ld.set_epoch(3)
samples = [int(s) for b in ld for s in b.samples]
mine = torch.tensor(samples)
gathered = [torch.zeros_like(mine) for _ in range(dist.get_world_size())]
dist.all_gather(gathered, mine)  # equal shares: all_gather needs equal sizes
union = torch.cat(gathered).tolist()
ok = len(set(union)) == len(union)
json.dump({"rank": ld.sampler.rank, "world_size": ld.sampler.world_size, "len": len(ld), "samples": samples,
           "order": ld.sampler.order(3).tolist(), "all_gathered_ok": ok}, open(out, "w"))
dist.destroy_process_group()
