#!/usr/bin/env bash
# The arrows of the design, checked on every test run.  Each folder may include
# headers from its own folder and from the folders listed for it below, never
# the other way; the folders' READMEs state the same rules in words.  The main
# ones:
#   sim/engine/ (the engine) includes no domain, report or command-line header;
#   models/ never includes reports/ or the command line, and its layers run one
#     way, from common/ up to study/;
#   reports/ reads results and never runs the simulation: no engine loop or
#     event header, no fleet, workload or study/run.h (sweep.h and plan.h are
#     the documents its tables print).
# Includes are by file name ("hist.h"), so every header's name must be unique
# in the tree.  Exit 1 naming each offending include.
set -u
cd "${1:-.}" || exit 2

declare -A allowed=(
  [sim/engine]=""
  [models/common]=""
  [models/hardware]="models/common"
  [models/traces]="models/common"
  [models/scenario]="sim/engine models/common models/hardware models/traces"
  [models/layout]="sim/engine models/common models/hardware models/traces models/scenario"
  [models/results]="sim/engine models/common models/hardware models/traces models/scenario models/layout"
  [models/fleet]="sim/engine models/common models/hardware models/traces models/scenario models/layout models/results"
  [models/workload]="sim/engine models/common models/hardware models/traces models/scenario models/layout models/results models/fleet"
  [models/study]="sim/engine models/common models/hardware models/traces models/scenario models/layout models/results models/fleet models/workload"
  [reports/output]="models/common models/hardware models/scenario models/layout models/results"
  [reports/charts]="models/common reports/output"
  [reports/tables]="models/common models/hardware models/scenario models/layout models/results models/study reports/output"
  [reports/review]="models/common models/hardware models/scenario models/layout models/results models/study reports/output reports/tables reports/charts"
  [sim/cli]="sim/engine models/common models/hardware models/traces models/scenario models/layout models/results models/fleet models/workload models/study reports/output reports/tables reports/charts reports/review calibrate"
  [calibrate]=""
)
# What a folder's allowed list above does not convey: reports see models/study
# only for the sweep and plan documents.
reports_study_headers="sweep.h plan.h"

fail=0
declare -A home=()
for dir in "${!allowed[@]}"; do
  for h in "$dir"/*.h; do
    [ -e "$h" ] || continue
    name=$(basename "$h")
    if [ -n "${home[$name]:-}" ]; then
      echo "layering: $name is in both ${home[$name]} and $dir: include names must be unique"
      fail=1
    fi
    home[$name]=$dir
  done
done

checked=0
for dir in "${!allowed[@]}"; do
  for f in "$dir"/*.c "$dir"/*.h "$dir"/*.cu; do
    [ -e "$f" ] || continue
    checked=$((checked + 1))
    while IFS= read -r inc; do
      name=$(basename "$inc")
      from=${home[$name]:-}
      if [ -z "$from" ]; then
        echo "layering: $f includes \"$inc\", which is in no source folder"
        fail=1
        continue
      fi
      [ "$from" = "$dir" ] && continue
      ok=0
      for a in ${allowed[$dir]}; do [ "$a" = "$from" ] && ok=1; done
      if [ $ok -eq 1 ] && [[ $dir == reports/* ]] && [ "$from" = models/study ] &&
         [[ " $reports_study_headers " != *" $name "* ]]; then
        ok=0
      fi
      if [ $ok -eq 0 ]; then
        case $dir in
          sim/engine) why="the engine knows nothing of the domain" ;;
          models/*) why="the domain's layers run one way (models/README.md), and never up to reports or the command line" ;;
          reports/*) why="reports read results, never run the simulation (reports/README.md)" ;;
          calibrate) why="the measuring tool stays down to libc and the CUDA runtime" ;;
          *) why="not among $dir's allowed folders" ;;
        esac
        echo "layering: $f includes \"$inc\" from $from: $why"
        fail=1
      fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  done
done
[ $fail -eq 0 ] && echo "layering: ok ($checked files in ${#allowed[@]} folders checked)"
exit $fail
