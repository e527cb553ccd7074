#!/usr/bin/env bash
# fleetsim-calibrate --host-only, for real, on whatever machine runs the tests
# (GPU or not, either build of the tool):
#   --host-only with --steps naming another step is a usage error (exit 2);
#   --host-only --storage-gb 0.25 exits 0 and writes a host-only profile whose
#   pageable fits, bandwidths and cold-read residency check_host_profile
#   judges (it prints them); the scratch file and PROFILE.tmp are gone after;
#   and the run loaded no CUDA library: the dynamic loader's own log
#   (LD_DEBUG=files) names none, where a GPU run of the CUDA build names the
#   driver's libcuda, which the static CUDA runtime opens at its first call.
# Usage: check_calibrate_host.sh PATH/TO/fleetsim-calibrate PATH/TO/check_host_profile.
# Exit 1 naming each failure.
set -u
bin=${1:?usage: check_calibrate_host.sh PATH/TO/fleetsim-calibrate PATH/TO/check_host_profile}
checker=${2:?usage: check_calibrate_host.sh PATH/TO/fleetsim-calibrate PATH/TO/check_host_profile}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "check_calibrate_host: $*"; fail=1; }

"$bin" --host-only --steps step-time --scratch "$tmp" --out "$tmp/usage.json" >/dev/null 2>"$tmp/usage.err"
rc=$?
[ $rc -eq 2 ] || bad "--host-only --steps step-time exited $rc, expected 2"
grep -q -- "--host-only" "$tmp/usage.err" ||
  bad "the usage error does not name --host-only: $(head -c 300 "$tmp/usage.err")"
[ ! -e "$tmp/usage.json" ] || bad "a usage error wrote a profile"
rm -f "$tmp/usage.err"

mkdir "$tmp/ld" || exit 1
LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld/ld" \
  "$bin" --host-only --storage-gb 0.25 --scratch "$tmp" --out "$tmp/host.json" >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
[ $rc -eq 0 ] || bad "--host-only exited $rc, expected 0: $(head -c 600 "$tmp/run.err")"
cat "$tmp/run.err"
grep -q "no GPU measured" "$tmp/run.out" || bad "the summary on stdout does not say \"no GPU measured\""

# The loader logs every library it maps (libc at least); none may be CUDA's.
if ! cat "$tmp"/ld/ld.* 2>/dev/null | grep -q "libc\.so"; then
  bad "LD_DEBUG=files left no log naming libc: cannot tell which libraries were loaded"
elif cat "$tmp"/ld/ld.* | grep -qiE "libcuda|libcudart|libnvidia"; then
  bad "--host-only loaded a CUDA library: $(cat "$tmp"/ld/ld.* | grep -iE "libcuda|libcudart|libnvidia" | head -n 3)"
fi
rm -rf "$tmp/ld"

# A scratch directory on tmpfs keeps the file in memory whatever the tool
# advises, so there "cold" cannot be cold and residency is printed, not judged.
fs=$(stat -f -c %T "$tmp" 2>/dev/null || echo unknown)
any=()
case $fs in tmpfs | ramfs) any=(--any-resident) ;; esac
if [ -s "$tmp/host.json" ]; then
  "$checker" "${any[@]}" "$tmp/host.json" || fail=1
else
  bad "no profile at $tmp/host.json"
fi

left=$(find "$tmp" -mindepth 1 \( -name 'fleetsim-calibrate-storage.*' -o -name '*.tmp' \) -print)
[ -z "$left" ] || bad "left behind: $left"

[ $fail -eq 0 ] && echo "check_calibrate_host: ok (scratch on $fs)"
exit $fail
