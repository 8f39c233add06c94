#!/usr/bin/env bash
# Builds the decoder's libFuzzer target with clang and runs it for a bounded
# time. Crashing inputs are copied to fuzz/zstd_decoder/regressions/ (commit
# them: the host test suite replays that folder).
#   fuzz/zstd_decoder/run.sh [SECONDS=60] [JOBS=1]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
secs=${1:-60}
jobs=${2:-1}
build=${ZSTD_FUZZ_BUILD:-$root/build-zstd-fuzz}
CXX=${CXX_FUZZ:-$(command -v clang++ || command -v clang++-14 || true)}
[ -n "$CXX" ] || { echo "clang++ not found"; exit 2; }
mkdir -p "$build"
# Direct compile: one translation unit, no CMake configure of the whole project.
"$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I"$root/src" "$here/zstd_decoder_fuzzer.cpp" -o "$build/zstd_decoder_fuzzer" $(pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
corpus="$build/corpus"
mkdir -p "$corpus" "$here/regressions" "$build/artifacts"
[ -n "$(ls -A "$corpus")" ] || python3 "$here/make_seeds.py" "$corpus"
cp -n "$here"/regressions/* "$corpus"/ 2>/dev/null || true
set +e
cd "$build"  # libFuzzer writes fuzz-N.log files in the working directory
"$build/zstd_decoder_fuzzer" "$corpus" -max_total_time="$secs" -max_len=200000 -timeout=10 -rss_limit_mb=2048 \
  -jobs="$jobs" -workers="$jobs" -artifact_prefix="$build/artifacts/" -print_final_stats=1 2>&1 | tail -25
rc=${PIPESTATUS[0]}
set -e
found=0
for f in "$build"/artifacts/*; do
  [ -e "$f" ] || continue
  cp "$f" "$here/regressions/$(basename "$f")"
  found=$((found + 1))
done
echo "fuzz: rc=$rc, $found new crashing input(s) copied to fuzz/zstd_decoder/regressions/"
[ "$rc" -eq 0 ] && [ "$found" -eq 0 ]
