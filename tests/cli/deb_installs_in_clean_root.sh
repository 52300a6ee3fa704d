#!/usr/bin/env bash
# `cpack -G DEB` makes a .deb that dpkg installs (its Depends satisfied by Debian runtime packages) into
# a throw-away root: /usr, /etc and /var are overlays inside a private mount namespace, so the host is
# untouched. Its version is 0.x.y+g<commit>. From the installed files: --version names the commit, the
# man page (with EXAMPLES, ENVIRONMENT, EXIT STATUS, FILES) and completions are in place and work,
# `envbisect diff` runs on the installed incident states, and the packaged example runs as shipped
# (`envbisect run` on /usr/share/doc/envbisect/examples/flags finds its cause). dpkg -r removes it.
source "$(dirname "$0")/common.sh"
BUILD="$(dirname "$ENVBISECT")"
[[ $(id -u) -eq 0 ]] || skip "needs root for a mount namespace with overlays"
need cpack cmake
need dpkg dpkg
unshare --mount true 2>/dev/null || skip "mount namespaces are not allowed here"

(cd "$T" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$T/pkg" >"$T/cpack.log" 2>&1) ||
  { cat "$T/cpack.log"; exit 1; }
deb=$(ls "$T"/pkg/envbisect_*.deb)
commit=$(git -C "$SRC" rev-parse --short=12 HEAD)
dpkg-deb -f "$deb" Version >"$T/deb-version.txt"
grep -qE "^0\.[0-9]+\.[0-9]+\+g$commit\$" "$T/deb-version.txt" || { echo "version: $(cat "$T/deb-version.txt")"; exit 1; }
dpkg-deb -f "$deb" Depends >"$T/depends.txt"
expect_contains "$T/depends.txt" "libgit2"
expect_contains "$T/depends.txt" "libcurl"  # package indexes are read through libcurl
expect_contains "$T/depends.txt" "libssl3"
not grep -q "boost" "$T/depends.txt"

mkdir -p "$T"/ovl/{usr,etc,var}/{up,work}
host_before=$(ls -la /usr/bin/envbisect 2>&1 || true)
unshare --mount --propagation private bash -euo pipefail -c '
  for d in usr etc var; do
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$T/ovl/$d/up,workdir=$T/ovl/$d/work" "/$d"
  done
  ! command -v envbisect >/dev/null || { echo "envbisect already on PATH before the install"; exit 1; }
  dpkg -i "$1" >"$T/dpkg-install.log" 2>&1 || { cat "$T/dpkg-install.log"; exit 1; }
  /usr/bin/envbisect --version >"$T/version.txt"
  test -s /usr/share/man/man1/envbisect.1*
  man_page=$(ls /usr/share/man/man1/envbisect.1*)
  (zcat -f "$man_page" | grep -q "^\.SS envbisect run") || { echo "man page lacks the run section"; exit 1; }
  for section in EXAMPLES ENVIRONMENT "EXIT STATUS" FILES; do
    (zcat -f "$man_page" | grep -q "^\.SH $section\$") || { echo "man page lacks $section"; exit 1; }
  done
  bash -c "source /usr/share/bash-completion/completions/envbisect && complete -p envbisect" >"$T/complete.txt"
  test -s /usr/share/zsh/vendor-completions/_envbisect
  test -s /usr/share/envbisect/state.schema.json
  examples=/usr/share/doc/envbisect/examples/dflash-cu130
  /usr/bin/envbisect diff "$examples/good.json" "$examples/bad.json" >"$T/diff.txt"
  flags=/usr/share/doc/envbisect/examples/flags
  /usr/bin/envbisect run "$flags/good.json" "$flags/bad.json" --recipe "$flags/recipe.json" -o "$T/flags-run" \
    --store "$T/store" >"$T/example-run.txt" 2>"$T/example-run.err"
  dpkg -r envbisect >"$T/dpkg-remove.log" 2>&1
  test ! -e /usr/bin/envbisect
' install "$deb"

expect_contains "$T/version.txt" "envbisect "
expect_contains "$T/version.txt" "(commit $commit"
expect_contains "$T/complete.txt" "_envbisect"
expect_contains "$T/diff.txt" "7 differences"
expect_contains "$T/diff.txt" "2.11.0+cu128"
expect_contains "$T/example-run.txt" "env/FLAG_A"
expect_contains "$T/example-run.txt" "env/FLAG_B"
[[ -s $T/flags-run/report.html ]]
# The host saw none of it.
[[ "$(ls -la /usr/bin/envbisect 2>&1 || true)" == "$host_before" ]] || { echo "the install leaked into the host"; exit 1; }
not dpkg-query -W envbisect >/dev/null 2>&1
