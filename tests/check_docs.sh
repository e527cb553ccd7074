#!/usr/bin/env bash
# The command line's documentation held to its one source, the help registry
# (sim/cli/help.c), through what the binary writes from it:
#   (a) sim/cli/README.md holds, between its BEGIN and END markers, exactly
#       what `fleetsim help --markdown` writes;
#   (b) the man page (`fleetsim help --man`) renders without a warning under
#       groff -man -ww, or man --warnings (skipped when neither is installed);
#   (c) the bash completion (`fleetsim help --completion bash`), sourced,
#       offers every command after `fleetsim ` and every long option of run
#       after `fleetsim run --`;
#   (d) each command's section of the man page names every long option that
#       its --help lists, and the OPTIONS section every program option;
#   (e) `fleetsim help [COMMAND]` prints what `fleetsim [COMMAND] --help` does.
# Usage: check_docs.sh PATH/TO/fleetsim SOURCE_DIR.  Exit 1 naming each failure.
set -u
bin=${1:?usage: check_docs.sh PATH/TO/fleetsim SOURCE_DIR}
src=${2:?usage: check_docs.sh PATH/TO/fleetsim SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "docs: $*"; fail=1; }

"$bin" help --markdown >"$tmp/reference.md" || bad "fleetsim help --markdown failed"
"$bin" help --man >"$tmp/fleetsim.1" || bad "fleetsim help --man failed"
"$bin" help --completion bash >"$tmp/completion.bash" || bad "fleetsim help --completion bash failed"
"$bin" --help >"$tmp/help.txt" || bad "fleetsim --help failed"

# The commands, as fleetsim --help lists them, and the long options of an
# option block ("  -x, --long ARG  help" or "      --long ARG  help").
commands=$(sed -n '/^commands:$/,/^$/p' "$tmp/help.txt" | awk 'NF && $1 != "commands:" { print $1 }')
[ -n "$commands" ] || bad "fleetsim --help lists no commands"
long_options() { sed -nE 's/^  (-[[:alnum:]], |    )(--[[:alnum:]][[:alnum:]-]*).*/\2/p'; }

# (a) The README's generated block.
readme=$src/sim/cli/README.md
begin='<!-- BEGIN fleetsim help --markdown -->'
end='<!-- END fleetsim help --markdown -->'
regenerate="f=sim/cli/README.md; { sed '/^$begin\$/q' \$f; $bin help --markdown; sed -n '/^$end\$/,\$p' \$f; } >\$f.new && mv \$f.new \$f"
if [ ! -f "$readme" ]; then
  bad "$readme is missing"
elif [ "$(grep -cxF -- "$begin" "$readme")" != 1 ] || [ "$(grep -cxF -- "$end" "$readme")" != 1 ]; then
  bad "$readme needs one line '$begin' and one line '$end'"
else
  awk -v b="$begin" -v e="$end" '$0 == e { inside = 0 } inside { print } $0 == b { inside = 1 }' \
    "$readme" >"$tmp/readme-block.md"
  if ! cmp -s "$tmp/readme-block.md" "$tmp/reference.md"; then
    diff -u "$tmp/readme-block.md" "$tmp/reference.md" | head -40
    bad "sim/cli/README.md differs from 'fleetsim help --markdown' (above: - README, + generated);" \
        "regenerate it from the source directory with:"
    echo "  $regenerate"
  fi
fi

# (b) The man page renders cleanly.
if command -v groff >/dev/null 2>&1; then
  groff -man -ww -z "$tmp/fleetsim.1" >"$tmp/render.err" 2>&1 || bad "groff -man failed on the man page"
  [ -s "$tmp/render.err" ] && { cat "$tmp/render.err"; bad "groff -man -ww warns about the man page"; }
elif command -v man >/dev/null 2>&1; then
  man --warnings -l "$tmp/fleetsim.1" >/dev/null 2>"$tmp/render.err" || bad "man -l failed on the man page"
  [ -s "$tmp/render.err" ] && { cat "$tmp/render.err"; bad "man --warnings warns about the man page"; }
elif [ -n "${CI:-}" ]; then
  bad "neither groff nor man is installed in CI (.ci/packages-test installs groff-base and man-db)"
else
  echo "docs: skipped rendering the man page: neither groff nor man is installed" \
       "(dpkg -l groff-base man-db; apt-get install groff-base)"
fi

# (c) Completion, as bash calls it: COMP_WORDS and COMP_CWORD, then _fleetsim.
complete_words() {
  bash -c 'source "$1" || exit 1
           shift
           COMP_WORDS=("$@")
           COMP_CWORD=$(($# - 1))
           _fleetsim && printf "%s\n" "${COMPREPLY[@]}"' _ "$tmp/completion.bash" "$@"
}
offered=$(complete_words fleetsim "") || bad "the completion script fails for 'fleetsim '"
for c in $commands; do
  grep -qxF -- "$c" <<<"$offered" || bad "completing 'fleetsim ' does not offer $c"
done
offered=$(complete_words fleetsim run --) || bad "the completion script fails for 'fleetsim run --'"
for o in $("$bin" run --help | long_options); do
  grep -qxF -- "$o" <<<"$offered" || bad "completing 'fleetsim run --' does not offer $o"
done

# (d) The man page's options: each command's in its own section (.SS), in
# the source's escaped form \-\-name.
section() { awk -v h="$1" '/^\.S[HS] / { inside = ($0 == h) } inside' "$tmp/fleetsim.1"; }
check_options() { # HEADING (as the man page writes it), then the --help text on stdin
  local heading=$1 o
  section "$heading" >"$tmp/section"
  [ -s "$tmp/section" ] || { bad "the man page has no section '$heading'"; return; }
  for o in $(long_options); do
    grep -qF -- "\\fB${o//-/\\-}\\fR" "$tmp/section" || bad "the man page's '$heading' does not name $o"
  done
}
check_options ".SH OPTIONS" <"$tmp/help.txt"
for c in $commands; do
  "$bin" "$c" --help >"$tmp/command-help.txt" || bad "fleetsim $c --help failed"
  check_options ".SS ${c//-/\\-}" <"$tmp/command-help.txt"
done

# (e) help COMMAND is COMMAND --help.
"$bin" help >"$tmp/help-command.txt" || bad "fleetsim help failed"
cmp -s "$tmp/help.txt" "$tmp/help-command.txt" || bad "'fleetsim help' differs from 'fleetsim --help'"
for c in $commands; do
  "$bin" "$c" --help >"$tmp/a.txt" 2>&1
  "$bin" help "$c" >"$tmp/b.txt" 2>&1
  cmp -s "$tmp/a.txt" "$tmp/b.txt" || bad "'fleetsim help $c' differs from 'fleetsim $c --help'"
done

[ $fail -eq 0 ] && echo "docs: README block, man page, completion and options agree with the help registry"
exit $fail
