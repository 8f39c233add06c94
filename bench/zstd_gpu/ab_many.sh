#!/usr/bin/env bash
# Several decoder variants against the tree, in one call on the GPU machine,
# on the same chunks (ab.sh times one change against its parent; this one
# times prepared changes, e.g. branches, against the tree they start from):
#   git diff main next/x -- src > .ab_x.patch     # each variant: a patch on the tree
#   bash bench/zstd_gpu/ab_many.sh .ab_x.patch .ab_y.patch
# or the tree's own build under an environment (a knob the decoder reads,
# e.g. ZARRGPU_ZSTD_MATCH_STAGES), a variant `env:NAME=VALUE[,NAME=VALUE...]`:
#   bash bench/zstd_gpu/ab_many.sh env:ZARRGPU_ZSTD_MATCH_STAGES=1 .ab_x.patch
# Builds zstd_gpu_bench for the tree (A) and for each patch applied alone
# (B, C, ...), then runs the rows AB_ROUNDS times, alternating A, B, C, ...
# (so that clock drift hits all), and prints each variant's median GB/s per
# row and its ratio to A. Rows and sizes: as ab.sh (AB_LEVELS, AB_CHUNK_KIB,
# AB_GIB, AB_GIB_L19, AB_RUNS, AB_ROUNDS). Patches must be untracked, not
# ignored, files of the tree to travel to the GPU machine. Leaves the build
# matching the tree (AB_RESTORE_BUILD=0: the last variant's, as ab.sh wants).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 1
[ $# -ge 1 ] || { echo "usage: ab_many.sh CHANGE.patch [CHANGE.patch ...]"; exit 2; }
out=${OUT:-/tmp/zstd_ab_many}
mkdir -p "$out"
rm -f "$out/ab_rows.txt"
ZSTD_BUILD_ONLY=1 OUT="$out" bash bench/gpu/zstd.sh > "$out/ab_build.log" 2>&1 || { tail -20 "$out/ab_build.log"; exit 1; }
bdir=build-zstd-gpu
find_bench() { find "$bdir" -type f -name zstd_gpu_bench -perm -u+x | head -1; }
build_bench() { cmake --build "$bdir" --target zstd_gpu_bench -j "$(nproc)" > "$out/ab_build_$1.log" 2>&1 ||
                  { tail -20 "$out/ab_build_$1.log"; return 1; }; }
cp "$(find_bench)" "$out/bench_A"
variants=(A)
declare -A envs=([A]="")
letters=(B C D E F G H)
i=0
for patch in "$@"; do
  v=${letters[$i]}
  i=$((i + 1))
  if [[ $patch == env:* ]]; then
    cp "$out/bench_A" "$out/bench_$v"
    envs[$v]=${patch#env:}
    envs[$v]=${envs[$v]//,/ }
    variants+=("$v")
    echo "$v = the tree with ${envs[$v]}"
    continue
  fi
  envs[$v]=""
  git apply "$patch" || { echo "$patch does not apply on this tree"; exit 1; }
  built=0
  build_bench "$v" && cp "$(find_bench)" "$out/bench_$v" && built=1
  git apply -R "$patch" || { echo "$patch does not reverse"; exit 1; }
  [ $built = 1 ] || { echo "$v ($patch) does not build"; exit 1; }
  variants+=("$v")
  echo "$v = $patch"
done
# The build matches the tree again (the next device call syncs the tree with
# its own older file times; an incremental build would keep a variant's
# objects without a word).
if [ "${AB_RESTORE_BUILD:-1}" = 1 ]; then build_bench A || exit 1; else rm -f "$bdir/.zarrgpu_tree"; fi
# Level 19 rows as large as the others (1 GiB: 16,384 chunks of 64 KiB): at
# 0.25 GiB a wave is small enough to hide costs that a full batch shows
# (bench/results/zstd_gpu_history.md, v18).
# The rows' compressed chunks are made once and kept in ZSTD_BENCH_CACHE
# (outside OUT, which the device call copies back) for every later
# invocation and call, as bench/gpu/zstd.sh keeps them.
args=(--gib "${AB_GIB:-1}" --gib-l19 "${AB_GIB_L19:-1}" --runs "${AB_RUNS:-3}" --levels "${AB_LEVELS:-3,19}"
      --chunk-kib "${AB_CHUNK_KIB:-64,1024}" --no-cpu --no-nvcomp --cache "${ZSTD_BENCH_CACHE:-/tmp/zstd_bench_cache}")
for round in $(seq "${AB_ROUNDS:-2}"); do
  for v in "${variants[@]}"; do
    env ${envs[$v]} "$out/bench_$v" "${args[@]}" --out "$out/run_$v$round" 2>&1 | grep -E "^level" | sed "s/^/$v /" >> "$out/ab_rows.txt"
  done
done
# Median GB/s of each variant per row, and its ratio to A.
python3 - "$out/ab_rows.txt" "${variants[@]}" <<'EOF'
import re, statistics, sys
rows, names = {}, sys.argv[2:]
for line in open(sys.argv[1]):
    m = re.match(r"(\w) level\s+(\d+)\s+chunk\s+(\d+) KiB.*zarrgpu\s+([\d.]+) GB/s", line)
    if m:
        rows.setdefault((int(m[2]), int(m[3])), {}).setdefault(m[1], []).append(float(m[4]))
head = "| level | chunk KiB | A GB/s |" + "".join(f" {v} GB/s | {v} / A |" for v in names[1:])
print(head + "\n|---:|---:|---:|" + "---:|---:|" * (len(names) - 1))
for (level, kib), v in sorted(rows.items()):
    a = statistics.median(v.get("A", [0]))
    cells = "".join(
        f" {statistics.median(v.get(n, [0])):.2f} | {statistics.median(v.get(n, [0])) / a if a else 0:.3f} |"
        for n in names[1:])
    print(f"| {level} | {kib} | {a:.2f} |{cells}")
EOF
