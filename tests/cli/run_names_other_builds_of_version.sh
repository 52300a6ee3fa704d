#!/usr/bin/env bash
# Two wheel folders hold alpha 1.0 with different bytes and the states pin no sha256: the state does
# not say which build it meant. The restore plan names the one taken and the one not taken, on every
# run (a warning) and in --dry-run; a copy of the same bytes is not another build; a sha256 pin
# settles it and the note goes away.
source "$(dirname "$0")/common.sh"
for build in fast slow; do
  mkdir -p "$T/src-$build/alpha" "$T/$build"
  echo "M = '$build'" >"$T/src-$build/alpha/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name alpha --version 1.0 --src "$T/src-$build" --out "$T/$build" >/dev/null
done
mkdir -p "$T/beta-src/beta" "$T/beta" "$T/copy"
echo "" >"$T/beta-src/beta/__init__.py"
"$PY" "$SRC/scripts/make_wheel.py" --name beta --version 2.0 --src "$T/beta-src" --out "$T/beta" >/dev/null
cp "$T/fast/alpha-1.0-py3-none-any.whl" "$T/copy/"
echo '{"format": 1, "command": ["{python}", "-c", "print(1)"], "metric": "m"}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"alpha": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"alpha": "1.0", "beta": "2.0"}}' >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$T/fast" --wheels "$T/copy" \
  --wheels "$T/slow" --wheels "$T/beta" --store "$T/store" --dry-run >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "restore: $T/good.json /packages/alpha 1.0 <- wheel $T/fast/alpha-1.0-py3-none-any.whl"
expect_contains "$T/out.txt" "also $T/slow/alpha-1.0-py3-none-any.whl: the same version with other bytes (or not known to be the same), not taken; pin a sha256 in $T/good.json /packages/alpha to choose"
expect_contains "$T/err.txt" "alpha 1.0 <- wheel $T/fast/alpha-1.0-py3-none-any.whl (also $T/slow/alpha-1.0-py3-none-any.whl"
not grep -q "also $T/copy" "$T/out.txt"   # the same bytes in a second folder are the same build
not grep -q "beta 2.0 <-.*also" "$T/out.txt"

# Pinned by sha256: the state chose, nothing to say.
hash=$(sha256sum "$T/slow/alpha-1.0-py3-none-any.whl" | cut -d' ' -f1)
for s in good bad; do
  "$PY" - "$T/$s.json" "$hash" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["packages"]["alpha"] = {"version": "1.0", "sha256": sys.argv[2]}
json.dump(doc, open(sys.argv[1], "w"))
PY
done
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$T/fast" --wheels "$T/copy" \
  --wheels "$T/slow" --wheels "$T/beta" --store "$T/store" --dry-run >"$T/out2.txt" 2>"$T/err2.txt"
expect_contains "$T/out2.txt" "/packages/alpha 1.0 <- wheel $T/slow/alpha-1.0-py3-none-any.whl"
not grep -q "not taken" "$T/out2.txt" "$T/err2.txt"
