#!/usr/bin/env bash
# zarrgpu-zstd-check on frames made by the `zstd` command: every valid frame is
# decoded by libzstd and compared ("ok"), highly compressible ones included
# (1 MiB of zeros at any level, frames with and without a content size), and
# a truncated frame is rejected by both decoders. Usage: zstd_check_test.sh CHECK_BINARY
set -euo pipefail
check=$1
command -v zstd >/dev/null || { echo "the zstd command is not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c 1048576 /dev/zero > "$dir/zeros"
head -c 4194304 /dev/zero > "$dir/zeros4m"
seq 1 200000 > "$dir/text"
n=0
for level in 1 3 9 19; do
  zstd -q -"$level" -c "$dir/zeros" > "$dir/zeros_l$level.zst"; n=$((n + 1))
done
zstd -q --ultra -22 -c "$dir/zeros" > "$dir/zeros_l22.zst"; n=$((n + 1))
zstd -q --fast=5 -c "$dir/zeros" > "$dir/zeros_fast5.zst"; n=$((n + 1))
zstd -q -3 -c "$dir/zeros4m" > "$dir/zeros4m_l3.zst"; n=$((n + 1))
# From a pipe: no content size in the frame header.
zstd -q -3 -c < "$dir/zeros" > "$dir/zeros_stream.zst"; n=$((n + 1))
zstd -q -19 -c < "$dir/zeros4m" > "$dir/zeros4m_stream_l19.zst"; n=$((n + 1))
zstd -q -3 -c "$dir/text" > "$dir/text_l3.zst"; n=$((n + 1))
# Two frames one after the other.
cat "$dir/zeros_l3.zst" "$dir/text_l3.zst" > "$dir/two_frames.zst"; n=$((n + 1))
# Truncated: both decoders must reject it.
head -c 20 "$dir/text_l3.zst" > "$dir/truncated.zst"
rm "$dir/zeros" "$dir/zeros4m" "$dir/text"

set +e
out=$("$check" --host "$dir")
rc=$?
set -e
echo "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
summary=$(echo "$out" | tail -1)
want="$((n + 1)) files: $n ok, 1 rejected by both, 0 mismatches"
case "$summary" in
  "$want"*) echo "PASS: $want" ;;
  *) echo "FAIL: expected \"$want\""; exit 1 ;;
esac
