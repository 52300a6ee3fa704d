#!/usr/bin/env bash
# `cpack -G DEB` makes a .deb that installs into a clean Debian 12 root (mmdebstrap's minbase bookworm
# from deb.debian.org, with bookworm-updates and bookworm-security as a fresh install has them): `dpkg -i`
# unpacks it and stops only at libraries its Depends names, which `apt-get -f install
# --no-install-recommends` then fetches from the mirror. A dependency the package forgets shows here,
# where the host (which has them all) hides it. Its version is 0.x.y+g<commit>. From the installed
# files: --version names the commit, the man page (with EXAMPLES, ENVIRONMENT, EXIT STATUS, FILES) and
# completions are in place and work, `envbisect diff` runs on the installed incident states, and the
# packaged example runs as README shows it (`envbisect run` on /usr/share/doc/envbisect/examples/flags
# finds its cause). dpkg -r removes it; the host is untouched.
# The one test that reaches a network: its point is Debian's packages as a user gets them. The root is
# made once and kept for 3 days in ${XDG_CACHE_HOME:-~/.cache}/envbisect-tests/bookworm-minbase-DATE.tar
# (mmdebstrap: 17-25 s here; the test: about 20 s with the root cached, 50 s without); apt's package
# lists are fetched anew each run.
source "$(dirname "$0")/common.sh"
BUILD="$(dirname "$ENVBISECT")"
[[ $(id -u) -eq 0 ]] || skip "needs root for mmdebstrap's root mode and chroot"
need cpack cmake
need dpkg-deb dpkg
need mmdebstrap mmdebstrap
unshare --mount --pid --fork true 2>/dev/null || skip "mount and pid namespaces are not allowed here"

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
expect_contains "$T/depends.txt" "python3"  # the packaged example runs /usr/bin/python3
not grep -q "boost" "$T/depends.txt"

# A minbase bookworm root named by the day it was made; one older than 3 days is made anew (the
# mirror moves on at point releases), in a hidden file renamed into place so a parallel run never
# reads half of one.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/envbisect-tests"
mkdir -p "$cache"
root_tar=$(find "$cache" -maxdepth 1 -name "bookworm-minbase-*.tar" -mtime -3 | sort | tail -n 1)
if [[ -z $root_tar ]]; then
  root_tar="$cache/bookworm-minbase-$(date -u +%Y%m%d).tar"
  fresh="$cache/.bookworm-minbase-$$.tar"
  mmdebstrap --quiet --variant=minbase --format=tar bookworm "$fresh" >"$T/mmdebstrap.log" 2>&1 ||
    { rm -f "$fresh"; cat "$T/mmdebstrap.log"; exit 1; }
  mv "$fresh" "$root_tar"
  find "$cache" -maxdepth 1 \( -name "bookworm-minbase-*.tar" -o -name ".bookworm-minbase-*.tar" -mmin +60 \) \
    ! -name "${root_tar##*/}" -delete
fi
root="$T/root"
mkdir "$root"
tar -C "$root" -xf "$root_tar"
cp "$deb" "$root/tmp/"
cp /etc/resolv.conf "$root/etc/resolv.conf"  # the cached root's may be days old
host_before=$(ls -la /usr/bin/envbisect 2>&1 || true)

# Everything in the root runs with a clean environment, in a mount namespace that holds its /proc and /dev.
inside_root() {
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  in_root() {
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
  }
  test ! -e "$root/usr/bin/envbisect"
  # dpkg unpacks the package and stops at the missing libraries (checked below).
  local rc=0
  in_root dpkg -i "/tmp/${deb##*/}" >"$T/dpkg-install.log" 2>&1 || rc=$?
  echo "$rc" >"$T/dpkg-install.rc"
  in_root apt-get update -qq >"$T/apt-update.log" 2>&1 || { cat "$T/apt-update.log"; exit 1; }
  in_root apt-get -f install -y -q --no-install-recommends >"$T/apt-fix.log" 2>&1 || { cat "$T/apt-fix.log"; exit 1; }
  in_root dpkg-query -W -f='${Status} ${Version}\n' envbisect >"$T/status.txt"
  in_root envbisect --version >"$T/version.txt"
  man_page=$(ls "$root"/usr/share/man/man1/envbisect.1*)
  test -s "$man_page"
  (zcat -f "$man_page" | grep -q "^\.SS envbisect run") || { echo "man page lacks the run section"; exit 1; }
  for section in EXAMPLES ENVIRONMENT "EXIT STATUS" FILES; do
    (zcat -f "$man_page" | grep -q "^\.SH $section\$") || { echo "man page lacks $section"; exit 1; }
  done
  in_root bash -c "source /usr/share/bash-completion/completions/envbisect && complete -p envbisect" >"$T/complete.txt"
  test -s "$root/usr/share/zsh/vendor-completions/_envbisect"
  test -s "$root/usr/share/envbisect/state.schema.json"
  local examples=/usr/share/doc/envbisect/examples
  in_root envbisect diff "$examples/dflash-cu130/good.json" "$examples/dflash-cu130/bad.json" >"$T/diff.txt"
  in_root envbisect run "$examples/flags/good.json" "$examples/flags/bad.json" --recipe "$examples/flags/recipe.json" \
    -o /tmp/flags-run >"$T/example-run.txt" 2>"$T/example-run.err" || { cat "$T/example-run.err"; exit 1; }
  test -s "$root/tmp/flags-run/report.html"
  in_root dpkg -r envbisect >"$T/dpkg-remove.log" 2>&1
  test ! -e "$root/usr/bin/envbisect"
}
export root deb T
export -f inside_root
unshare --mount --pid --fork --propagation private bash -Eeuo pipefail -c \
  'trap "echo \"inside_root: command failed (exit \$?): \$BASH_COMMAND\" >&2" ERR; inside_root'

# dpkg -i failed only for want of libraries its Depends names, and the root lacked even libgit2 and libcurl.
[[ $(cat "$T/dpkg-install.rc") -eq 1 ]] || { cat "$T/dpkg-install.log"; exit 1; }
expect_contains "$T/dpkg-install.log" "Unpacking envbisect"
expect_contains "$T/dpkg-install.log" "dependency problems - leaving unconfigured"
[[ $(grep -c "^dpkg: error" "$T/dpkg-install.log") -eq 1 ]] || { cat "$T/dpkg-install.log"; exit 1; }
sed -n 's/^ envbisect depends on \([^ ;]*\).*/\1/p' "$T/dpkg-install.log" >"$T/missing.txt"
grep -qx "libgit2-1.5" "$T/missing.txt" && grep -qx "libcurl4" "$T/missing.txt" ||
  { echo "the root was not clean:"; cat "$T/dpkg-install.log"; exit 1; }
tr ',|' '\n\n' <"$T/depends.txt" | sed 's/^ *//; s/[ (].*//' >"$T/depends-names.txt"
while read -r name; do
  grep -qx "$name" "$T/depends-names.txt" || { echo "dpkg wants $name, which Depends does not name"; exit 1; }
done <"$T/missing.txt"
# apt-get -f install satisfied them all from the mirror, without Recommends.
expect_contains "$T/status.txt" "install ok installed $(cat "$T/deb-version.txt")"

expect_contains "$T/version.txt" "envbisect "
expect_contains "$T/version.txt" "(commit $commit"
expect_contains "$T/complete.txt" "_envbisect"
expect_contains "$T/diff.txt" "7 differences"
expect_contains "$T/diff.txt" "2.11.0+cu128"
expect_contains "$T/example-run.txt" "env/FLAG_A"
expect_contains "$T/example-run.txt" "env/FLAG_B"
# The host saw none of it.
[[ "$(ls -la /usr/bin/envbisect 2>&1 || true)" == "$host_before" ]] || { echo "the install leaked into the host"; exit 1; }
not dpkg-query -W envbisect >/dev/null 2>&1
