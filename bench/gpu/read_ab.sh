#!/usr/bin/env bash
# A/B of a change on the device read path, in one call on the GPU machine:
#   git diff > /tmp/change.patch        # the change, on top of what it is measured against
#   bash bench/gpu/read_ab.sh change.patch   # the tree as is = B; B minus the patch = A
# Builds bench_gpu_read for B and for A (the patch reversed) in build/
# (configured as bench/gpu/run.sh does), then
#   1. full warm reads of the ERA5-like zstd store (AB_STEPS time steps of
#      721 x 1440 x 4 float32, default 481: ~8 GB, as bench/gpu_read),
#      AB_ROUNDS (3) rounds alternating A and B, each --repeat AB_REPEAT (3):
#      every run's GB/s and each variant's median;
#   2. ncu's summed kernel times of one full read of PROFILE_STEPS (86) steps
#      with ZARRGPU_STAGING_BYTES=AB_NCU_STAGING (1G: one decoder wave; "":
#      the defaults), A and B side by side (AB_NCU=0 skips it).
# The builds go to /tmp/read_ab_bin (not $OUT: the device tool returns few files).
# Leaves build/ matching the tree (B): the next device call syncs the tree
# with its own older file times, and an incremental build would keep A's
# objects without a word. Writes $OUT/read_ab.txt.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
patch_file=$(realpath "${1:?usage: read_ab.sh CHANGE.patch}")
out=${OUT:-/tmp/read_ab}
bins=/tmp/read_ab_bin
mkdir -p "$out" "$bins"
export PATH=/usr/local/cuda/bin:$PATH
build() {
  bash bench/gpu/build.sh "$out" "$1" bench_gpu_read zarrgpu_cli || return 1
  cp "$(find build -name bench_gpu_read -type f -perm -u+x | head -1)" "$bins/bench_$1"
}
build B || exit 1
git apply -R "$patch_file" || { echo "the patch does not reverse on this tree"; exit 1; }
build A; built_a=$?
git apply "$patch_file"
build B || exit 1
[ $built_a -eq 0 ] || exit 1
cli=$(find build -path '*tools/zarrgpu/zarrgpu' -type f -perm -u+x | head -1)
store_of() {
  local s=/tmp/zarrgpu_bench/era5_zstd_$1.zarr
  mkdir -p "$(dirname "$s")"
  [ -d "$s" ] || "$cli" generate era5 "$s" --time "$1" --lat 721 --lon 1440 --quiet
  echo "$s"
}
report=$out/read_ab.txt
{
  echo "# read A/B of $(basename "$patch_file") ($(date -u +'%F %H:%M UTC'), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), tree $(git rev-parse --short HEAD) + changes)"
  store=$(store_of "${AB_STEPS:-481}")
  echo "## full warm reads of $store: GB/s per run"
  "$bins/bench_B" "$store" --mode full --repeat 1 > /dev/null 2>&1  # page cache and GPU warm
  for round in $(seq "${AB_ROUNDS:-3}"); do
    for v in A B; do
      "$bins/bench_$v" "$store" --mode full --repeat "${AB_REPEAT:-3}" 2>/dev/null | tail -1 |
        python3 -c "import json,sys; print('$v', *json.loads(sys.stdin.read())['all_gbps'])"
    done
  done | tee "$out/ab_runs.txt"
  python3 - "$out/ab_runs.txt" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    v, *xs = line.split()
    runs.setdefault(v, []).extend(float(x) for x in xs)
a, b = statistics.median(runs.get("A", [0])), statistics.median(runs.get("B", [0]))
print(f"median GB/s: A {a:.2f}, B {b:.2f}, B / A {b / a if a else 0:.3f}")
EOF
  if [ "${AB_NCU:-1}" = 1 ]; then
    ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    small=$(store_of "${PROFILE_STEPS:-86}")
    staging=${AB_NCU_STAGING-1G}
    for v in A B; do
      env ${staging:+ZARRGPU_STAGING_BYTES=$staging} timeout 180 "$ncu_bin" --csv --clock-control none --metrics gpu__time_duration.sum \
        "$bins/bench_$v" "$small" --mode full --repeat 1 > "$out/ncu_$v.csv" 2>/dev/null
      python3 bench/gpu/ncu_kernel_times.py "$out/ncu_$v.csv" > "$out/kernels_$v.txt"
    done
    echo "## ncu, one full read of $small (ZARRGPU_STAGING_BYTES=${staging:-default}): us per kernel, A | B"
    join -j 1 <(awk '{print $1, $4}' "$out/kernels_A.txt" | sort) <(awk '{print $1, $4}' "$out/kernels_B.txt" | sort) |
      sort -k2 -n -r | awk '{printf "%-28s %10.1f %10.1f  %.3f\n", $1, $2, $3, ($2 > 0 ? $3 / $2 : 0)}'
  fi
} > "$report" 2>&1
cat "$report"
