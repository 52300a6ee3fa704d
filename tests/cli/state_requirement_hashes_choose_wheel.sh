#!/usr/bin/env bash
# A requirements line with several --hash options (one per file: a wheel and the sdist, as pip-compile
# and uv export write them) keeps them all in the state, and the wheel taken must have one of them:
# of two folders holding alpha 1.0 with other bytes, the one whose sha256 the line lists is taken,
# whichever folder comes first; the sdist's hash does not make the wheel fail; a line none of whose
# hashes is a wheel's leaves the package unrestorable, naming the hashes.
source "$(dirname "$0")/common.sh"
for build in fast slow; do
  mkdir -p "$T/src-$build/alpha" "$T/$build"
  echo "M = '$build'" >"$T/src-$build/alpha/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name alpha --version 1.0 --src "$T/src-$build" --out "$T/$build" >/dev/null
done
mkdir -p "$T/beta-src/beta"
echo "" >"$T/beta-src/beta/__init__.py"
"$PY" "$SRC/scripts/make_wheel.py" --name beta --version 2.0 --src "$T/beta-src" --out "$T/fast" >/dev/null
slow=$(sha256sum "$T/slow/alpha-1.0-py3-none-any.whl" | cut -d' ' -f1)
sdist=$(printf 'the sdist' | sha256sum | cut -d' ' -f1)
other=$(printf 'another wheel' | sha256sum | cut -d' ' -f1)
printf 'alpha==1.0 \\\n    --hash=sha256:%s \\\n    --hash=sha256:%s\n' "$sdist" "$slow" >"$T/requirements.txt"
"$ENVBISECT" state "$T/requirements.txt" --python 3.11 -o "$T/good.json" 2>"$T/state.err"
"$PY" - "$T/good.json" "$slow" "$sdist" <<'PY'
import json, sys
pin = json.load(open(sys.argv[1]))["packages"]["alpha"]
assert pin == {"version": "1.0", "hashes": sorted(sys.argv[2:4])}, pin
PY
not grep -q "not checked" "$T/state.err"
# bad: the same, and beta added (something to bisect).
add_beta() { "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["packages"]["beta"] = "2.0"; json.dump(d, open(sys.argv[2], "w"))' "$@"; }
add_beta "$T/good.json" "$T/bad.json"
echo '{"format": 1, "command": ["{python}", "-c", "print(1)"], "metric": "m"}' >"$T/recipe.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$T/fast" --wheels "$T/slow" \
  --store "$T/store" --dry-run >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "/packages/alpha 1.0 <- wheel $T/slow/alpha-1.0-py3-none-any.whl"
not grep -q "not taken" "$T/out.txt" "$T/err.txt"

# None of the hashes is a wheel's there: refused before anything runs, the hashes named.
printf 'alpha==1.0 --hash=sha256:%s --hash=sha256:%s\n' "$sdist" "$other" >"$T/requirements.txt"
"$ENVBISECT" state "$T/requirements.txt" --python 3.11 -o "$T/good.json" 2>/dev/null
add_beta "$T/good.json" "$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$T/fast" --wheels "$T/slow" \
  --store "$T/store" --dry-run >"$T/out2.txt" 2>"$T/err2.txt" || rc=$?
[[ $rc -eq 2 ]]
expect_contains "$T/err2.txt" "/packages/alpha: alpha==1.0 with a sha256 of "
expect_contains "$T/err2.txt" "$other"
