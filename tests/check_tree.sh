#!/usr/bin/env bash
# The house rules that keep the tree readable, checked on every test run:
#   (a) every source folder (each folder of sim/, models/, reports/ and
#       calibrate/ that holds .c, .h or .cu files) has a README.md, and that
#       README names each of its source files in backticks (`name.c`), so the
#       table a newcomer reads cannot fall behind the folder;
#   (b) no source file (those folders and tests/) is over 1,000 lines unless
#       its first 40 lines say why, on a line containing "over 1,000 lines".
# Usage: check_tree.sh SOURCE_DIR.  Exit 1 naming each offence.
set -u
cd "${1:-.}" || exit 2
limit=1000
fail=0
folders=0
files=0

while IFS= read -r dir; do
  folders=$((folders + 1))
  readme=$dir/README.md
  if [ ! -f "$readme" ]; then
    echo "tree: $dir has source files but no README.md (what it owns, a table of its files, what it may include)"
    fail=1
    continue
  fi
  for f in "$dir"/*.c "$dir"/*.h "$dir"/*.cu; do
    [ -e "$f" ] || continue
    name=$(basename "$f")
    grep -qF -- "\`$name\`" "$readme" || {
      echo "tree: $readme does not name $name (add a row to its table of files)"
      fail=1
    }
  done
done < <(find sim models reports calibrate -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) \
           -printf '%h\n' | sort -u)

while IFS= read -r f; do
  files=$((files + 1))
  lines=$(wc -l <"$f")
  if [ "$lines" -gt "$limit" ] && ! head -n 40 "$f" | grep -qF "over 1,000 lines"; then
    echo "tree: $f has $lines lines; split it, or say at its top why it is over 1,000 lines"
    fail=1
  fi
done < <(find sim models reports calibrate tests -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort)

[ $fail -eq 0 ] && echo "tree: ok ($folders source folders each with a README naming its files;" \
                        "$files source files, none over $limit lines without a reason)"
exit $fail
