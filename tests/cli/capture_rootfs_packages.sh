#!/usr/bin/env bash
# `envbisect capture --rootfs DIR` records a root filesystem as the state's container base with the
# Debian packages installed in it (dpkg-query on DIR's own database), and `diff` shows two captures
# whose bases differ in one package (a CUDA user-space upgrade) as one container/base change.
source "$(dirname "$0")/common.sh"
need dpkg-query dpkg
need /usr/bin/python3 python3
rootfs() {  # rootfs DIR CUDA_VERSION: a minimal dpkg database
  mkdir -p "$1/var/lib/dpkg/info" "$1/var/lib/dpkg/updates"
  cat >"$1/var/lib/dpkg/status" <<STATUS
Package: libc6
Status: install ok installed
Maintainer: t <t@e>
Description: c library
Version: 2.36-9+deb12u14
Architecture: amd64

Package: cuda-runtime
Status: install ok installed
Maintainer: t <t@e>
Description: cuda
Version: $2
Architecture: amd64

Package: removed-tool
Status: deinstall ok config-files
Maintainer: t <t@e>
Description: gone
Version: 1.0
Architecture: amd64

STATUS
}
rootfs "$T/rootfs-old" 13.0.88-1
rootfs "$T/rootfs-new" 13.0.90-1
"$ENVBISECT" capture --python /usr/bin/python3 --rootfs "$T/rootfs-old" -o "$T/old.json" >"$T/out.txt"
"$ENVBISECT" capture --python /usr/bin/python3 --rootfs "$T/rootfs-new" -o "$T/new.json" >/dev/null
expect_contains "$T/out.txt" "2 Debian packages of $T/rootfs-old"
"$PY" - "$T/old.json" "$T/rootfs-old" <<'PY'
import json, sys
container = json.load(open(sys.argv[1]))["container"]
assert container == {"base": sys.argv[2], "packages": {"cuda-runtime": "13.0.88-1", "libc6": "2.36-9+deb12u14"}}, container
PY
"$ENVBISECT" diff "$T/old.json" "$T/new.json" >"$T/diff.txt" || true
expect_contains "$T/diff.txt" "container"
expect_contains "$T/diff.txt" "cuda-runtime"
not grep -q libc6 "$T/diff.txt"
# A folder without a dpkg database is a bad input, and nothing is written.
rc=0
"$ENVBISECT" capture --python /usr/bin/python3 --rootfs "$T" -o "$T/none.json" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 2 && ! -e "$T/none.json" ]]
expect_contains "$T/err.txt" "no Debian package database"
