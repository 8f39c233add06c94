#!/usr/bin/env bash
# Full warm reads of the ERA5-like zstd store under several settings, in one
# call, after bench/gpu/run.sh built build/ (e.g. `bash bench/gpu/run.sh none`):
#   bash bench/gpu/read_sweep.sh "" "ZARRGPU_STAGING_BYTES=1G" ...
# Each argument is a list of environment assignments for one row ("" = the
# defaults). SWEEP_STEPS time steps of 721 x 1440 x 4 float32 (default 481,
# ~8 GB, as bench/gpu_read), SWEEP_VARIANT (zstd), SWEEP_REPEAT (3).
# SWEEP_COLD=1: each timed read starts from a dropped page cache (root only).
# Writes $OUT/read_sweep.txt (or bench/results/).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
out=${OUT:-$root/bench/results}
mkdir -p "$out"
bench=$(find build -name bench_gpu_read -type f -perm -u+x | head -1)
cli=$(find build -path '*tools/zarrgpu/zarrgpu' -type f -perm -u+x | head -1)
[ -n "$bench" ] && [ -n "$cli" ] || { echo "build/ has no bench_gpu_read or zarrgpu: run bench/gpu/run.sh first"; exit 1; }
steps=${SWEEP_STEPS:-481}
variant=${SWEEP_VARIANT:-zstd}
store=/tmp/zarrgpu_bench/era5_${variant}_$steps.zarr
mkdir -p "$(dirname "$store")"
[ -d "$store" ] || "$cli" generate era5 "$store" --time "$steps" --lat 721 --lon 1440 --variant "$variant" --quiet
report=$out/read_sweep.txt
summary=$(cat <<'EOF2'
import json, sys
r = json.loads(sys.stdin.read())
s = r["stats"]
print(f"{r['zarrgpu_gbps']:.2f} GB/s (runs {r['all_gbps']}); {s['batches']} batches, total {s['seconds_total']:.3f}s, "
      f"I/O {s['seconds_io']:.3f}s, H2D {s['seconds_h2d']:.3f}s, GPU decode {s['seconds_gpu_decode']:.3f}s; "
      f"{s['decoder_codec'] or 'decoder'} on GPU {s['decoder_gpu_chunks']}, CPU {s['decoder_cpu_chunks']}; "
      f"stored bytes {s['bytes_read'] / max(s['seconds_total'], 1e-9) / 1e9:.2f} GB/s (last run)")
EOF2
)
[ $# -gt 0 ] || set -- ""
{
  echo "# full $([ "${SWEEP_COLD:-0}" = 1 ] && echo cold || echo warm) reads of $store ($(date -u +'%F %H:%M UTC'), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
  for settings in "$@"; do
    echo "## ${settings:-defaults}"
    if [ "${SWEEP_COLD:-0}" = 1 ]; then
      # Cold: the page cache dropped before each run (as root), one read per run.
      for r in $(seq "${SWEEP_REPEAT:-3}"); do
        sync; echo 3 > /proc/sys/vm/drop_caches || { echo "cannot drop the page cache"; break; }
        env $settings timeout 120 "$bench" "$store" --mode full --repeat 1 2>&1 | tail -1 |
          python3 -c "$summary" | sed 's/^/cold: /' || echo "failed"
      done
    else
      env $settings timeout 120 "$bench" "$store" --mode full --repeat "${SWEEP_REPEAT:-3}" 2>&1 | tail -1 |
        python3 -c "$summary" || echo "failed"
    fi
  done
} > "$report" 2>&1
cat "$report"
