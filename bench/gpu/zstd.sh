#!/usr/bin/env bash
# The Zstandard GPU decoder on the GPU machine, in one call, within a time
# budget (default 510 s, under the 9-minute limit):
#   1. configure and build with CUDA, Release, only the zstd targets
#   2. GPU tests (zstd_gpu_test) and the check tool on the shared corpus
#   3. compute-sanitizer memcheck and racecheck on a large batch
#   4. the benchmark (zarrgpu, nvCOMP if its wheel is in .whl/, libzstd CPU)
#      -> $OUT (or bench/results): zstd_gpu.{csv,md,json,png}, and the logs in
#      one archive, zstd_logs.tar.gz (the GPU machine returns 8 files a call:
#      with the logs loose, the markdown, JSON and plot were left behind)
# Sizes are environment variables:
#   ZSTD_BENCH_GIB (2), ZSTD_BENCH_GIB_L19 (2), ZSTD_BENCH_RUNS (5),
#   ZSTD_BENCH_CHUNK_KIB (64,256,1024,4096), ZSTD_BENCH_LEVELS (1,3,9,19),
#   ZSTD_SANITIZE_CHUNKS (256; the block-parallel batch takes an eighth),
#   ZSTD_SANITIZE_FILTER (both LargeBatch tests), ZSTD_SANITIZE (1; 0 skips step 3 when only
#   timing a kernel whose structure the last sanitized run covered),
#   ZSTD_TIME_BUDGET_S (510), ZSTD_BUILD_ONLY (1: stop after step 1),
#   ZSTD_TESTS (1; 0 skips step 2), ZSTD_BENCH (1; 0 skips step 4),
#   ZSTD_BENCH_CACHE (/tmp/zstd_bench_cache: the compressed rows, reused).
# With every level at 2 GiB (the issue's size; level 19 compresses at ~60 MB/s
# on 16 cores: ~140 s for its four rows) steps 2-4 take longer than one
# call: run the checks and the benchmark as two calls,
#   ZSTD_BENCH=0 bash bench/gpu/zstd.sh
#   ZSTD_TESTS=0 ZSTD_SANITIZE=0 bash bench/gpu/zstd.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
out=${OUT:-$root/bench/results}
mkdir -p "$out"
t0=$(date +%s)
budget=${ZSTD_TIME_BUDGET_S:-510}
elapsed() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( budget - $(elapsed) )); }
declare -A result
step() { echo "== $1 ($(elapsed)s)"; }
export PATH=/usr/local/cuda/bin:$PATH

# ---- dependencies carried as files (.deps/, .whl/) --------------------------
[ -f bench/gpu/prepare.sh ] && source bench/gpu/prepare.sh
nvcomp_root=""
for d in /tmp/site/nvidia/libnvcomp "$root/build-zstd-gpu/nvcomp/nvidia/libnvcomp"; do
  [ -f "$d/include/nvcomp/zstd.h" ] && { nvcomp_root=$d; break; }
done
if [ -z "$nvcomp_root" ] && ls "$root"/.whl/nvidia_libnvcomp*.whl >/dev/null 2>&1; then
  mkdir -p "$root/build-zstd-gpu/nvcomp"
  python3 -m zipfile -e "$(ls "$root"/.whl/nvidia_libnvcomp*.whl | head -1)" "$root/build-zstd-gpu/nvcomp" &&
    nvcomp_root="$root/build-zstd-gpu/nvcomp/nvidia/libnvcomp"
fi
echo "nvCOMP: ${nvcomp_root:-not found (put the nvidia-libnvcomp-cu13 wheel in .whl/)}"

# ---- 1. build ---------------------------------------------------------------
step "configure and build"
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DZARRGPU_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90
        -DZARRGPU_NVCOMP_ROOT="$nvcomp_root")
bdir=build-zstd-gpu
cmake -S . -B $bdir "${common[@]}" > "$out/zstd_configure.log" 2>&1 || { tail -30 "$out/zstd_configure.log"; exit 1; }
targets=(zstd_gpu_test zarrgpu-zstd-check zstd_gpu_bench)
# The GPU machine keeps build outputs between calls but syncs the tree with
# its own (older) file times: after a call that built other sources (an
# A/B variant, ab_many.sh), ninja saw nothing to do and a benchmark ran the
# variant's binaries without a word (2026-11-23). So the build records the
# tree it was made from, and a build of any other tree (or of an unknown
# one: no record) first marks every source as changed.
stamp=$( { git rev-parse HEAD; git diff HEAD -- src include bench tests CMakeLists.txt cmake; } 2>/dev/null | sha1sum)
if [ "$(cat "$bdir/.zarrgpu_tree" 2>/dev/null)" != "$stamp" ]; then
  find src include bench tests -type f -exec touch {} + 2>/dev/null
fi
rm -f "$bdir/.zarrgpu_tree"
if ! cmake --build $bdir --target "${targets[@]}" -j "$(nproc)" > "$out/zstd_build.log" 2>&1; then
  grep -E "error" -A3 "$out/zstd_build.log" | head -40; exit 1
fi
echo "$stamp" > "$bdir/.zarrgpu_tree"
grep -E "registers|spill" "$out/zstd_build.log" | sort -u | sed 's/^/ptxas: /' | head -6
find_bin() { find $bdir -type f -name "$1" -perm -u+x | head -1; }
test_bin=$(find_bin zstd_gpu_test); check_bin=$(find_bin zarrgpu-zstd-check); bench_bin=$(find_bin zstd_gpu_bench)
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'

[ "${ZSTD_BUILD_ONLY:-0}" = 1 ] && { echo "built ($bdir)"; exit 0; }

# ---- 2. GPU tests and the check tool -----------------------------------------
step "GPU tests"
if [ "${ZSTD_TESTS:-1}" = 0 ]; then
  result[tests]="skipped (ZSTD_TESTS=0)"; result[check]="skipped (ZSTD_TESTS=0)"
else
timeout $(( $(left) > 200 ? 200 : $(left) )) "$test_bin" > "$out/zstd_gpu_test.log" 2>&1
rc=$?; result[tests]=$([ $rc -eq 0 ] && echo pass || echo "FAIL (rc $rc)")
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$out/zstd_gpu_test.log" | head -12
corpus=${ZARRGPU_SHARED_CORPUS:-$root/../shared/corpus}
[ -d "$corpus" ] || corpus="$root/.corpus"
[ -d "$corpus" ] || corpus="$root/tests/corpus/data"
if [ -d "$corpus" ]; then
  timeout 60 "$check_bin" --sniff "$corpus" > "$out/zstd_check.log" 2>&1
  rc=$?; result[check]=$([ $rc -eq 0 ] && echo pass || echo "FAIL (rc $rc)")
  tail -1 "$out/zstd_check.log"
else
  result[check]="skipped (no corpus)"
fi
fi

# ---- 3. compute-sanitizer ------------------------------------------------------
chunks=${ZSTD_SANITIZE_CHUNKS:-256}
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool ($chunks chunks)"
  if [ "${ZSTD_SANITIZE:-1}" = 0 ]; then result[$tool]="skipped (ZSTD_SANITIZE=0)"; continue; fi
  if ! command -v compute-sanitizer > /dev/null; then result[$tool]="skipped (no compute-sanitizer)"; continue; fi
  lim=$(( $(left) - 150 )); [ $lim -gt 150 ] && lim=150
  if [ $lim -lt 20 ]; then result[$tool]="skipped (time budget)"; continue; fi
  ZSTD_GPU_TEST_CHUNKS=$chunks timeout $lim compute-sanitizer --tool $tool --error-exitcode 9 \
    "$test_bin" --gtest_filter="${ZSTD_SANITIZE_FILTER:-ZstdGpu.LargeBatch:ZstdGpuBlockParallel.LargeBatch}" > "$out/zstd_$tool.log" 2>&1
  rc=$?
  case $rc in
    0) result[$tool]="clean ($(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards[^$]*' "$out/zstd_$tool.log" | head -1))" ;;
    124) result[$tool]="timed out after ${lim}s" ;;
    *) result[$tool]="FINDINGS (rc $rc, see zstd_$tool.log)"; grep -m5 -E "=========" "$out/zstd_$tool.log" ;;
  esac
  echo "${result[$tool]}"
done

# ---- 4. benchmark ---------------------------------------------------------------
step "benchmark"
gib=${ZSTD_BENCH_GIB:-2}; gib19=${ZSTD_BENCH_GIB_L19:-2}
lim=$(( $(left) - 15 ))
if [ $lim -lt 120 ]; then  # short of time: a smaller run rather than none
  gib=$(python3 -c "print(min($gib, 0.5))"); gib19=$(python3 -c "print(min($gib19, 0.0625))")
fi
# Compressed rows are kept in ZSTD_BENCH_CACHE (outside $out) for later runs
# on the same machine: level 19 at 2 GiB compresses for ~20 s a row.
bench_cmd=("$bench_bin" --gib "$gib" --gib-l19 "$gib19" --runs "${ZSTD_BENCH_RUNS:-5}"
           --chunk-kib "${ZSTD_BENCH_CHUNK_KIB:-64,256,1024,4096}" --levels "${ZSTD_BENCH_LEVELS:-1,3,9,19}" --out "$out"
           --cache "${ZSTD_BENCH_CACHE:-/tmp/zstd_bench_cache}")
echo "${bench_cmd[*]}" > "$out/zstd_bench_command.txt"
if [ "${ZSTD_BENCH:-1}" = 0 ]; then
  result[bench]="skipped (ZSTD_BENCH=0)"
elif [ $lim -gt 20 ]; then
  timeout $lim "${bench_cmd[@]}" 2>&1 | tee "$out/zstd_bench.log"
  rc=${PIPESTATUS[0]}; result[bench]=$([ $rc -eq 0 ] && echo "done" || echo "FAIL (rc $rc)")
  [ -f "$out/zstd_gpu.csv" ] && python3 bench/zstd_gpu/plot.py "$out/zstd_gpu.csv" "$out/zstd_gpu.png"
else
  result[bench]="skipped (time budget)"
fi

# ---- summary ----------------------------------------------------------------------
step "summary"
printf '%-12s %s\n' build "ok ($bdir)" tests "${result[tests]}" check "${result[check]:-}" \
  memcheck "${result[memcheck]:-}" racecheck "${result[racecheck]:-}" bench "${result[bench]:-}"
[ -f "$out/zstd_gpu.md" ] && grep -E "^\|" "$out/zstd_gpu.md"
# The logs in one archive, the results left beside it.
logs=()
for f in zstd_configure.log zstd_build.log zstd_gpu_test.log zstd_check.log zstd_memcheck.log zstd_racecheck.log \
         zstd_bench.log zstd_bench_command.txt; do
  [ -f "$out/$f" ] && logs+=("$f")
done
if [ ${#logs[@]} -gt 0 ] && tar -czf "$out/zstd_logs.tar.gz" -C "$out" "${logs[@]}"; then
  (cd "$out" && rm -f "${logs[@]}")
fi
echo "outputs in $out, logs in zstd_logs.tar.gz ($(elapsed)s)"
