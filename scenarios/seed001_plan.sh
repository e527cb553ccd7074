#!/bin/sh
# Sizes seed001.json's three fleets with `fleetsim plan` (one plan per policy
# and region: plan takes at most 64 options) and compares the sized fleets.
#   scenarios/seed001_plan.sh OUT [seed001.py options, e.g. --traffic 3]
# writes OUT/seed001.json (the generator's start), OUT/plan-POLICY-REGION/,
# OUT/sizes.json (the answers), OUT/seed001.planned.json and OUT/compare.txt.
set -eu
out=$1
shift
mkdir -p "$out"
gen="python3 scenarios/seed001.py"
$gen "$@" --start > "$out/seed001.json"
for policy in whole-gpus mig fractional; do
    for region in us-east eu-west ap-northeast; do
        # shellcheck disable=SC2046 # one option a word
        ./build/fleetsim plan "$out/seed001.json" $($gen "$@" --plan-args "$policy" "$region") \
            --out "$out/plan-$policy-$region" --quiet > "$out/plan-$policy-$region.txt"
    done
done
$gen "$@" --sizes-from-plans "$out" > "$out/sizes.json"
$gen "$@" --sizes "$out/sizes.json" > "$out/seed001.planned.json"
./build/fleetsim compare "$out/seed001.planned.json" --out "$out/compare" > "$out/compare.txt"
grep -A6 '^fleet$' "$out/compare.txt"
