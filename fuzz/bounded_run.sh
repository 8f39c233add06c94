#!/usr/bin/env bash
# Runs a built libFuzzer target for a bounded time and copies every crashing
# input it finds into REGRESSIONS (commit them: ctest replays those folders).
# Fails when the run failed or found anything. Used by fuzz/*/run.sh.
#   fuzz/bounded_run.sh BINARY CORPUS REGRESSIONS WORKDIR SECONDS JOBS [libFuzzer options...]
set -euo pipefail
binary=$1 corpus=$2 regressions=$3 work=$4 secs=$5 jobs=$6
shift 6
mkdir -p "$corpus" "$regressions" "$work/artifacts"
cp -n "$regressions"/* "$corpus"/ 2>/dev/null || true
set +e
cd "$work"  # libFuzzer writes fuzz-N.log files in the working directory
"$binary" "$corpus" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -jobs="$jobs" -workers="$jobs" \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$@" 2>&1 | tail -25
rc=${PIPESTATUS[0]}
set -e
found=0
for f in "$work"/artifacts/*; do
  [ -e "$f" ] || continue
  cp "$f" "$regressions/$(basename "$f")"
  found=$((found + 1))
done
echo "$(basename "$binary"): rc=$rc, $found new crashing input(s) copied to $regressions/"
[ "$rc" -eq 0 ] && [ "$found" -eq 0 ]
