#!/usr/bin/env bash
# The start of the GPU machine's stage scripts (run.sh, xarray.sh,
# zarr_python.sh): source it first. Strict mode, the repository root as the
# working directory ($root), unbuffered Python, the results folder ($out:
# $OUT or bench/results), and what prepare.sh brings in.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
export PYTHONUNBUFFERED=1
out=${OUT:-$root/bench/results}
mkdir -p "$out"
source bench/gpu/prepare.sh
