#!/usr/bin/env bash
# Trace replay: rows per second and peak memory when a scenario replays a
# CSV trace, for synthetic traces of 1 and 10 million rows (1,000 requests per
# second, prompt and output sizes) and, when ../shared/data is there, the
# largest shipped inference trace (Azure conv, looped for a day).  Memory must
# not grow with the trace's length: the reader streams the file.  Prints
# figures; fails only if a run fails.  Usage: bench_replay.sh FLEETSIM SOURCE_DIR
set -euo pipefail
fleetsim=$1
src=$2
work=$(mktemp -d /tmp/fleetsim-bench-replay-XXXXXX)
trap 'rm -rf "$work"' EXIT

scenario() { # file trace-object horizon
  cat > "$1" <<JSON
{"schema": "fleetsim/1", "name": "replay benchmark", "horizon": "$3", "warmup": "0s", "window": "10m", "seed": 1,
 "pools": [{"name": "p", "gpu": "H100-SXM-80GB", "gpus": 64}],
 "services": [{"name": "llm", "pool": "p", "arrivals": {"trace": $2},
   "service_time": {"exponential": {"mean": "20ms"}},
   "replicas": {"count": 64, "concurrency": 4}}]}
JSON
}

measure() { # label scenario
  "$fleetsim" run "$2" --format json > "$work/out.json"
  awk -v label="$1" '
    /"requests":/ && !req { gsub(/[^0-9.]/, "", $2); req = $2 }
    /"wall_s":/ { gsub(/[^0-9.e+-]/, "", $2); wall = $2 }
    /"peak_rss_mb":/ { gsub(/[^0-9.e+-]/, "", $2); rss = $2 }
    END { printf "replay: %-28s %10d rows in %6.2f s: %5.2f M rows/s, peak RSS %.1f MB\n", label, req, wall, req / wall / 1e6, rss }' \
    "$work/out.json"
}

for rows in 1000000 10000000; do
  awk -v n="$rows" 'BEGIN { print "t,prompt,out"; srand(7); for (i = 0; i < n; i++) printf "%.3f,%d,%d\n", i / 1000, 100 + int(rand() * 2000), 1 + int(rand() * 200) }' \
    > "$work/trace-$rows.csv"
  scenario "$work/s-$rows.json" "{\"file\": \"trace-$rows.csv\", \"time\": \"t\", \"sizes\": [\"prompt\", \"out\"], \"service_time\": {\"base\": \"5ms\", \"per_size\": [\"0.005ms\", \"0.1ms\"]}}" "$((rows / 1000))s"
  measure "synthetic, $((rows / 1000000))M rows" "$work/s-$rows.json"
  rm -f "$work/trace-$rows.csv"
done

conv="$(cd "$src/.." && pwd)/shared/data/azure-llm-2023/AzureLLMInferenceTrace_conv.csv"
if [ -f "$conv" ]; then
  scenario "$work/conv.json" "{\"file\": \"$conv\", \"preset\": \"azure-llm\", \"repeat\": true, \"rate_scale\": 20}" "1d"
  measure "Azure conv x20, looped 1 day" "$work/conv.json"
else
  echo "replay: ../shared/data is absent: the Azure conv figure is skipped"
fi
