#!/usr/bin/env bash
# Sweep throughput: the same sweep (scenarios/sweeps/morning-tail.json, 6
# points x 4 replications = 24 runs of 2 simulated days) with 1 and with 2
# local jobs, each into a fresh directory, and the speed-up.  Prints figures; fails only if a sweep
# fails or the two give different results.  Usage: bench_sweep.sh FLEETSIM SOURCE_DIR
set -euo pipefail
fleetsim=$1
src=$2
work=$(mktemp -d /tmp/fleetsim-bench-sweep-XXXXXX)
trap 'rm -rf "$work"' EXIT
runs=24
declare -A wall
for jobs in 1 2; do
  start=$(date +%s.%N)
  "$fleetsim" sweep "$src/scenarios/sweeps/morning-tail.json" --jobs "$jobs" --replications 4 --out "$work/j$jobs" --quiet
  end=$(date +%s.%N)
  wall[$jobs]=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  awk -v j="$jobs" -v n="$runs" -v w="${wall[$jobs]}" \
    'BEGIN { printf "sweep: %d jobs: %d runs in %.2f s, %.3f runs/s\n", j, n, w, n / w }' 
done
cmp -s "$work/j1/points.json" "$work/j2/points.json" || { echo "sweep: 1 and 2 jobs gave different results" >&2; exit 1; }
awk -v a="${wall[1]}" -v b="${wall[2]}" -v c="$(nproc)" \
  'BEGIN { printf "sweep: speed-up with 2 jobs: %.2fx (on %s cores)\n", a / b, c }' 
