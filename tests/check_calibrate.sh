#!/usr/bin/env bash
# fleetsim-calibrate's behaviour that needs no GPU, checked on every test run:
#   --help exits 0 and lists --max-gb, --host-only and the H100 run times; an
#   unknown option exits 2;
#   with no usable CUDA device it exits 3, says "no CUDA device" on stderr and
#   leaves no profile behind.  Built without CUDA (its --help says so first),
#   the same run exits 3 saying that only --host-only is available.
# (--host-only itself: check_calibrate_host.sh.)
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
grep -q -- "--host-only" "$tmp/help.out" || bad "--help does not list --host-only"
grep -q "full run took 185 s" "$tmp/help.out" || bad "--help does not give the H100 full run's time"
no_cuda="fleetsim-calibrate was built without CUDA: only --host-only is available"
if head -n 1 "$tmp/help.out" | grep -qF "$no_cuda"; then
  expect=$no_cuda
else
  expect="no CUDA device"
fi

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
grep -qF "$expect" "$tmp/run.err" || bad "stderr does not say \"$expect\": $(head -c 300 "$tmp/run.err")"
[ ! -e "$tmp/profile.json" ] && [ ! -e "$tmp/profile.json.tmp" ] || bad "a profile was written without a device"
[ ! -s "$tmp/run.out" ] || bad "stdout is not empty without a device"

[ $fail -eq 0 ] && echo "check_calibrate: ok ($(head -n 1 "$tmp/run.err"))"
exit $fail
