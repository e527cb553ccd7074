#!/usr/bin/env bash
# fleetsim-calibrate's behaviour that needs no GPU, checked on every test run:
#   --help exits 0, an unknown option exits 2;
#   with no usable CUDA device it exits 3, says "no CUDA device" on stderr and
#   leaves no profile behind.
# On a host where `nvidia-smi -L` lists a GPU the no-device check runs with
# CUDA_VISIBLE_DEVICES=-1 (which hides every device) instead of against the
# real GPU, so the test never starts a calibration.
# Usage: check_calibrate.sh PATH/TO/fleetsim-calibrate.  Exit 1 naming each failure.
set -u
bin=${1:?usage: check_calibrate.sh PATH/TO/fleetsim-calibrate}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "check_calibrate: $*"; fail=1; }

"$bin" --help >"$tmp/help.out" 2>"$tmp/help.err"
rc=$?
[ $rc -eq 0 ] || bad "--help exited $rc, expected 0"
grep -q -- "--max-gb" "$tmp/help.out" || bad "--help does not list --max-gb"

"$bin" --no-such-option >/dev/null 2>"$tmp/usage.err"
rc=$?
[ $rc -eq 2 ] || bad "an unknown option exited $rc, expected 2"

# CUDA_VISIBLE_DEVICES=-1 hides every device (an invalid first index leaves none visible).  On a
# GPU host that is what makes the check possible; on others it keeps a host whose nvidia-smi is
# missing but whose driver works from starting a calibration.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "check_calibrate: nvidia-smi lists a GPU; checking the no-device path with CUDA_VISIBLE_DEVICES=-1"
fi
export CUDA_VISIBLE_DEVICES=-1
# --quick and a small --max-gb bound the run should a device show up regardless.
"$bin" --quick --max-gb 0.05 --out "$tmp/profile.json" >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
[ $rc -eq 3 ] || bad "without a device it exited $rc, expected 3"
grep -q "no CUDA device" "$tmp/run.err" || bad "stderr does not say \"no CUDA device\": $(head -c 300 "$tmp/run.err")"
[ ! -e "$tmp/profile.json" ] && [ ! -e "$tmp/profile.json.tmp" ] || bad "a profile was written without a device"
[ ! -s "$tmp/run.out" ] || bad "stdout is not empty without a device"

[ $fail -eq 0 ] && echo "check_calibrate: ok ($(head -n 1 "$tmp/run.err"))"
exit $fail
