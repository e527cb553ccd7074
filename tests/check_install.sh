#!/usr/bin/env bash
# What a platform team installs: `cmake --install` into a scratch prefix gives
# a fleetsim that runs from there (a shipped scenario validates), its man page
# and its bash completion; and, where cpack and dpkg-deb are installed (CI
# installs them), the Debian package holds the same files and declares the
# shared libraries the binary links.  Usage: check_install.sh BUILD_DIR
set -u
build=$(cd "${1:?usage: check_install.sh BUILD_DIR}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "install: $*"; fail=1; }

prefix=$tmp/prefix
if ! cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"
  bad "cmake --install failed"
  exit 1
fi
expected=(
  bin/fleetsim
  share/man/man1/fleetsim.1
  share/bash-completion/completions/fleetsim
  share/fleetsim/scenarios/morning-tail.json
  share/fleetsim/scenarios/morning-tail.baseline.json
  share/doc/fleetsim/README.md
  share/doc/fleetsim/LICENSE
)
for f in "${expected[@]}"; do
  [ -s "$prefix/$f" ] || bad "cmake --install did not install $f"
done

# The installed binary runs from its prefix, away from the source tree.
version=$("$prefix/bin/fleetsim" --version 2>&1) || bad "installed fleetsim --version failed: $version"
(cd "$tmp" && "$prefix/bin/fleetsim" validate "$prefix/share/fleetsim/scenarios/morning-tail.json" \
   >"$tmp/validate.out" 2>&1) || { cat "$tmp/validate.out"; bad "installed fleetsim cannot validate an installed scenario"; }

# The installed man page is the one the binary generates, and man finds it there.
"$prefix/bin/fleetsim" help --man >"$tmp/generated.1" 2>/dev/null || bad "fleetsim help --man failed"
cmp -s "$tmp/generated.1" "$prefix/share/man/man1/fleetsim.1" || bad "the installed man page differs from 'fleetsim help --man'"
if command -v man >/dev/null 2>&1; then
  MANPATH=$prefix/share/man man -w fleetsim >/dev/null 2>&1 || bad "man -w fleetsim does not find the installed page"
fi

# The installed completion script defines a completion for fleetsim.
bash -c "source '$prefix/share/bash-completion/completions/fleetsim' && complete -p fleetsim" >/dev/null 2>&1 ||
  bad "the installed bash completion registers nothing for fleetsim"

if command -v cpack >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 && command -v dpkg-shlibdeps >/dev/null 2>&1; then
  if (cd "$tmp" && cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg") >"$tmp/cpack.log" 2>&1; then
    deb=$(ls "$tmp"/pkg/fleetsim_*.deb 2>/dev/null | head -n1)
    if [ -z "$deb" ]; then
      bad "cpack wrote no fleetsim_*.deb"
    else
      dpkg-deb -c "$deb" >"$tmp/contents"
      for f in "${expected[@]}"; do
        grep -q " \./usr/$f\$" "$tmp/contents" || bad "the package lacks /usr/$f"
      done
      depends=$(dpkg-deb -f "$deb" Depends)
      for lib in libgsl libjansson libcsv; do
        [[ $depends == *"$lib"* ]] || bad "the package's Depends ($depends) does not name $lib"
      done
      echo "install: $(basename "$deb"): $(grep -c . "$tmp/contents") entries; Depends: $depends"
    fi
  else
    cat "$tmp/cpack.log"
    bad "cpack -G DEB failed"
  fi
elif [ -n "${CI:-}" ]; then
  bad "cpack, dpkg-deb or dpkg-shlibdeps missing in CI (.ci/packages-test installs them)"
else
  echo "install: cpack, dpkg-deb or dpkg-shlibdeps not found: the Debian package is not checked"
fi

[ $fail -eq 0 ] && echo "install: ok ($version; ${#expected[@]} files under the prefix)"
exit $fail
