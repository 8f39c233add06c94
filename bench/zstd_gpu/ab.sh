#!/usr/bin/env bash
# A/B of a decoder change on the GPU machine, in one call, on the same chunks:
#   git diff BASE > /tmp/change.patch   # the change, on top of BASE
#   bash bench/zstd_gpu/ab.sh change.patch   # (the tree as is = B; B minus the patch = A)
# Builds zstd_gpu_bench for B and for A (the patch reversed), then runs the
# rows AB_ROUNDS times alternating A, B (so that clock drift hits both), and
# prints each variant's median GB/s per row. Rows: AB_LEVELS (3,19),
# AB_CHUNK_KIB (64,1024), AB_GIB (1; AB_GIB_L19 0.25 for level 19), AB_RUNS per invocation (3). nvCOMP and
# libzstd are left out (bench/gpu/zstd.sh compares against them). Needs the
# CUDA build of bench/gpu/zstd.sh (ZSTD_BUILD_ONLY=1 is run first).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
patch_file=${1:?usage: ab.sh CHANGE.patch}
out=${OUT:-/tmp/zstd_ab}
mkdir -p "$out"
ZSTD_BUILD_ONLY=1 OUT="$out" bash bench/gpu/zstd.sh > "$out/ab_build.log" 2>&1 || { tail -20 "$out/ab_build.log"; exit 1; }
bdir=$( [ -d build-zstd-gpu ] && echo build-zstd-gpu || echo build-zstd-gpu-standalone )
find_bench() { find "$bdir" -type f -name zstd_gpu_bench -perm -u+x | head -1; }
cp "$(find_bench)" "$out/bench_B"
git apply -R "$patch_file" || { echo "the patch does not reverse on this tree"; exit 1; }
build_bench() { cmake --build "$bdir" --target zstd_gpu_bench -j "$(nproc)" > "$out/ab_build_$1.log" 2>&1 ||
                  { tail -20 "$out/ab_build_$1.log"; return 1; }; }
build_bench A && cp "$(find_bench)" "$out/bench_A"
git apply "$patch_file"
# Leave the build matching the tree (B): the next device call syncs the tree
# with its own, older file times, and an incremental build would then keep
# A's objects without a word.
build_bench B || exit 1
[ -x "$out/bench_A" ] || exit 1
args=(--gib "${AB_GIB:-1}" --gib-l19 "${AB_GIB_L19:-0.25}" --runs "${AB_RUNS:-3}" --levels "${AB_LEVELS:-3,19}"
      --chunk-kib "${AB_CHUNK_KIB:-64,1024}" --no-cpu --no-nvcomp)
for round in $(seq "${AB_ROUNDS:-2}"); do
  for v in A B; do
    "$out/bench_$v" "${args[@]}" --out "$out/run_$v$round" 2>&1 | grep -E "^level" | sed "s/^/$v /" >> "$out/ab_rows.txt"
  done
done
# Median GB/s of each variant per row.
python3 - "$out/ab_rows.txt" <<'EOF'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\w) level\s+(\d+)\s+chunk\s+(\d+) KiB.*zarrgpu\s+([\d.]+) GB/s", line)
    if m:
        rows.setdefault((int(m[2]), int(m[3])), {}).setdefault(m[1], []).append(float(m[4]))
print("| level | chunk KiB | A GB/s | B GB/s | B / A |\n|---:|---:|---:|---:|---:|")
for (level, kib), v in sorted(rows.items()):
    a, b = statistics.median(v.get("A", [0])), statistics.median(v.get("B", [0]))
    print(f"| {level} | {kib} | {a:.2f} | {b:.2f} | {b / a if a else 0:.3f} |")
EOF
