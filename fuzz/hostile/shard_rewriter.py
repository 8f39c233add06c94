"""Rewrites a shard file over and over, as another process writing the array would.

    python shard_rewriter.py SHARD VERSION_A VERSION_B SECONDS

For SECONDS, writes VERSION_B's then VERSION_A's bytes to a temporary file
beside SHARD and renames it onto SHARD (a whole-file replace, as zarrgpu and
zarr-python write). Readers of the array meanwhile must see one version of the
shard or the other, never an index of one and data of the next (issue 33).
Used by faults.py and tests/python/test_hostile.py.
"""

import os
import sys
import time


def main(shard: str, version_a: str, version_b: str, seconds: str) -> None:
    a, b = open(version_a, "rb").read(), open(version_b, "rb").read()
    end, i = time.monotonic() + float(seconds), 0
    while time.monotonic() < end:
        tmp = shard + ".w" + str(i % 2)
        with open(tmp, "wb") as f:
            f.write(a if i % 2 else b)
        os.replace(tmp, shard)
        i += 1


if __name__ == "__main__":
    main(*sys.argv[1:5])
