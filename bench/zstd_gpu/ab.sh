#!/usr/bin/env bash
# A/B of a decoder change on the GPU machine, in one call, on the same chunks:
#   git diff BASE > /tmp/change.patch   # the change, on top of BASE
#   bash bench/zstd_gpu/ab.sh change.patch   # (the tree as is = B; B minus the patch = A)
# Builds zstd_gpu_bench for A (the patch reversed) and for B, then runs the
# rows AB_ROUNDS times alternating A, B (so that clock drift hits both), and
# prints each variant's median GB/s per row. Rows: AB_LEVELS (3,19),
# AB_CHUNK_KIB (64,1024), AB_GIB (1; AB_GIB_L19 1 for level 19), AB_RUNS per invocation (3). nvCOMP and
# libzstd are left out (bench/gpu/zstd.sh compares against them). Needs the
# CUDA build of bench/gpu/zstd.sh (ZSTD_BUILD_ONLY=1 is run first).
# It is ab_many.sh run on the tree without the change, with the change as
# its one variant; binaries and rows go to $OUT (/tmp/zstd_ab).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 1
patch_file=$(realpath "${1:?usage: ab.sh CHANGE.patch}")
export OUT=${OUT:-/tmp/zstd_ab}
git apply -R "$patch_file" || { echo "the patch does not reverse on this tree"; exit 1; }
# The build is left with B's objects: the tree is B again below.
AB_RESTORE_BUILD=0 bash bench/zstd_gpu/ab_many.sh "$patch_file"
rc=$?
git apply "$patch_file" || { echo "the patch does not apply again: the tree is A"; exit 1; }
exit $rc
