#!/usr/bin/env bash
# The arrows of the design, checked on every test run:
#   sim/ (the engine) includes only sim/ headers and system headers;
#   models/ never includes reports/ or the command line;
#   reports/ reads results and never runs the simulation.
# Exit 1 naming each offending include.
set -u
cd "${1:-.}" || exit 2
fail=0
headers_of() { for f in "$@"; do [ -e "$f" ] && basename "$f"; done; }
sim_headers=$(headers_of sim/*.h)
models_headers=$(headers_of models/*.h)
reports_headers=$(headers_of reports/*.h)
cli_headers=$(headers_of sim/cli/*.h)
check() { # dir allowed... ; forbidden list
  local files=$1 forbidden=$2 why=$3
  for f in $files; do
    while IFS= read -r inc; do
      for h in $forbidden; do
        if [ "$inc" = "$h" ]; then
          echo "layering: $f includes \"$inc\": $why"
          fail=1
        fi
      done
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | xargs -rn1 basename)
  done
}
check "$(ls sim/*.c sim/*.h)" "$models_headers $reports_headers $cli_headers" "the engine knows nothing of the domain"
check "$(ls models/*.c models/*.h)" "$reports_headers $cli_headers" "the domain does not depend on reports or the command line"
check "$(ls reports/*.c reports/*.h)" "run.h service.h pool.h sim.h event.h $cli_headers" "reports read results, never run the simulation"
[ $fail -eq 0 ] && echo "layering: ok ($(ls sim/*.[ch] models/*.[ch] reports/*.[ch] | wc -l) files checked)"
exit $fail
