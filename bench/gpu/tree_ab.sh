#!/usr/bin/env bash
# A/B of two whole trees on the GPU machine, in one call (for changes too wide for a patch,
# such as issue 35's): A = an older commit, B = this tree.
#   git archive --format=tar.gz -o .ab/A.tgz COMMIT        # here; .ab/ ignored, carried
#   A_TGZ=.ab/A.tgz A_NAME=COMMIT bash bench/gpu/tree_ab.sh   # there
# Builds the Zstd benchmark and bench_gpu_read for both, then full warm reads of the 8 GB
# ERA5-like store (zstd and sharded) and 16 Zstd rows, alternating A and B over three rounds;
# prints the medians (bench/gpu/tree_ab_table.py). Results in $OUT.
set -u
export PYTHONUNBUFFERED=1 PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); el(){ echo "$(( $(date +%s)-t0 ))s"; }
source bench/gpu/prepare.sh > $OUT/prepare.log 2>&1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$gpu $(date -u +'%F %H:%M UTC')"
B=$PWD; A=/tmp/A; rm -rf $A; mkdir -p $A && tar xzf "$A_TGZ" -C $A
for t in B A; do
  d=${!t}
  (cd $d && ZSTD_BUILD_ONLY=1 ZSTD_TESTS=0 OUT=/tmp/zb_$t bash bench/gpu/zstd.sh > $OUT/zb_$t.log 2>&1) || { echo "zstd build $t failed"; tail -20 $OUT/zb_$t.log; exit 1; }
  cp "$(find $d/build-zstd-gpu -type f -name zstd_gpu_bench -perm -u+x | head -1)" /tmp/zbench_$t
  (cd $d && bash bench/gpu/build.sh /tmp/rb_$t $t bench_gpu_read zarrgpu_cli > /dev/null 2>&1) || { echo "read build $t failed"; tail -20 /tmp/rb_$t/build_$t.log; exit 1; }
  cp "$(find $d/build -name bench_gpu_read -type f -perm -u+x | head -1)" /tmp/rbench_$t
  echo "built $t ($(el))"
done
cli=$B/build/tools/zarrgpu/zarrgpu
zs=/tmp/era5_zstd_481.zarr; sh=/tmp/era5_sharded_481.zarr
$cli generate era5 $zs --time 481 --lat 721 --lon 1440 --quiet && $cli generate era5 $sh --time 481 --lat 721 --lon 1440 --variant sharded --quiet
echo "stores $(du -sh $zs $sh | cut -f1 | tr '\n' ' ') ($(el))"
for st in $zs $sh; do
  /tmp/rbench_B $st --mode full --repeat 1 > /dev/null 2>&1
  for r in 1 2 3; do for v in A B; do
    /tmp/rbench_$v $st --mode full --repeat 3 2>/dev/null | tail -1 | python3 -c "import json,sys; print('$(basename $st)', '$v', *json.loads(sys.stdin.read())['all_gbps'])"
  done; done
done | tee $OUT/read_ab_runs.txt
echo "reads done ($(el))"
args=(--gib 0.5 --gib-l19 0.25 --runs 3 --levels 1,3,9,19 --chunk-kib 64,256,1024,4096 --no-cpu --no-nvcomp --cache /tmp/zcache)
/tmp/zbench_B "${args[@]}" --out /tmp/zrun_warm > /dev/null 2>&1
for r in 1 2 3; do for v in A B; do
  /tmp/zbench_$v "${args[@]}" --out /tmp/zrun_$v$r 2>&1 | grep -E "^level" | sed "s/^/$v /"
done; done > $OUT/zstd_ab_rows.txt
echo "zstd rows done ($(el))"
A_NAME=${A_NAME:-A} python3 bench/gpu/tree_ab_table.py $OUT/read_ab_runs.txt $OUT/zstd_ab_rows.txt "$gpu" | tee $OUT/ab_table.md
