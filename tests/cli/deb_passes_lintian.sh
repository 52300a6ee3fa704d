#!/usr/bin/env bash
# The .deb that `cpack -G DEB` makes is one Debian accepts: lintian reports no error and no warning
# (copyright, changelog, description, maintainer, manual page, stripped binary, permissions).
source "$(dirname "$0")/common.sh"
BUILD="$(dirname "$ENVBISECT")"
need cpack cmake
need dpkg-deb dpkg
need lintian lintian
(cd "$T" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$T/pkg" >"$T/cpack.log" 2>&1) ||
  { cat "$T/cpack.log"; exit 1; }
deb=$(ls "$T"/pkg/envbisect_*.deb)
lintian --allow-root --fail-on error,warning --display-level ">=warning" "$deb" >"$T/lintian.txt" 2>&1 ||
  { echo "lintian:"; cat "$T/lintian.txt"; exit 1; }
[[ ! -s $T/lintian.txt ]] || { echo "lintian says:"; cat "$T/lintian.txt"; exit 1; }
echo "deb_passes_lintian: ok"
