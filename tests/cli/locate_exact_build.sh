#!/usr/bin/env bash
# `envbisect locate NAME==VERSION` names every wheel and uv-cache archive holding that exact build
# (local label included) and exits 0; for a build nobody holds it says so and exits 1.
source "$(dirname "$0")/common.sh"

# A wheelhouse with +cu130 only; a uv cache (archive-v0/<id>/, dist-info beside the files) with +cu128.
"$PY" "$SRC/scripts/make_wheel.py" --name fauxtorch --version 2.11.0+cu130 --add fauxtorch/__init__.py=/dev/null --out "$T/wheels" > /dev/null
"$PY" "$SRC/scripts/make_wheel.py" --name fauxtorch --version 2.11.0+cu128 --add fauxtorch/__init__.py=/dev/null --out "$T/build" > /dev/null
mkdir -p "$T/uv/archive-v0/Qm3xYb0c"
"$PY" -m zipfile -e "$T/build/fauxtorch-2.11.0+cu128-py3-none-any.whl" "$T/uv/archive-v0/Qm3xYb0c"

"$ENVBISECT" locate fauxtorch==2.11.0+cu128 --wheels "$T/wheels" --uv-cache "$T/uv" > "$T/out" 2> "$T/err"
printf 'uv cache archive %s (fauxtorch-2.11.0+cu128.dist-info)\n' "$T/uv/archive-v0/Qm3xYb0c" > "$T/expected"
diff -u "$T/expected" "$T/out"

"$ENVBISECT" locate FauxTorch==2.11.0+cu130 --wheels "$T/wheels" --uv-cache "$T/uv" > "$T/out" 2> "$T/err"
expect_contains "$T/out" "wheel $T/wheels/fauxtorch-2.11.0+cu130-py3-none-any.whl"

rc=0
"$ENVBISECT" locate fauxtorch==2.11.0+cu126 --wheels "$T/wheels" --uv-cache "$T/uv" > "$T/out" 2> "$T/err" || rc=$?
[[ $rc -eq 1 ]]
[[ ! -s "$T/out" ]]
expect_contains "$T/err" "fauxtorch==2.11.0+cu126 cannot be restored"
expect_contains "$T/err" "2.11.0+cu130"

# A wheel saved from its download URL keeps "%2B" for "+" in its name: pip and uv refuse such a name,
# and so does envbisect, but the message names the file and the name to give it.
cp "$T/build/fauxtorch-2.11.0+cu128-py3-none-any.whl" "$T/wheels/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl"
rc=0
"$ENVBISECT" locate fauxtorch==2.11.0+cu128 --wheels "$T/wheels" > "$T/out" 2> "$T/err" || rc=$?
[[ $rc -eq 1 ]]
expect_contains "$T/err" "not read: $T/wheels/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl: its name is URL-encoded"
expect_contains "$T/err" "rename it to fauxtorch-2.11.0+cu128-py3-none-any.whl"

# A name that is not a PEP 508 name is bad input, as written (it was normalised to "-/-/x" and searched).
rc=0
"$ENVBISECT" locate '../../x==1.0' --wheels "$T/wheels" > "$T/out" 2> "$T/err" || rc=$?
[[ $rc -eq 2 ]]
expect_contains "$T/err" "'../../x==1.0': invalid package name '../../x'"

# A file named like the build but not a zip is not a restorable build: exit 1, the file and why named.
mkdir -p "$T/junk" && echo junk >"$T/junk/fauxtorch-2.11.0+cu128-py3-none-any.whl"
rc=0
"$ENVBISECT" locate fauxtorch==2.11.0+cu128 --wheels "$T/junk" > "$T/out" 2> "$T/err" || rc=$?
[[ $rc -eq 1 ]]
[[ ! -s "$T/out" ]]
expect_contains "$T/err" "not a readable wheel: $T/junk/fauxtorch-2.11.0+cu128-py3-none-any.whl"
