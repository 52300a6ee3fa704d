#!/usr/bin/env bash
# Where the fix is known, an error is followed by a `hint:` line saying it: the interpreter a lock has
# packages for; the builds of a missing wheel that are there; the recipe's metric key and the log of a
# run that printed no metric.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/pylock.toml" <<'TOML'
lock-version = "1.0"
created-by = "envbisect-tests"

[[packages]]
name = "click"
version = "8.1.7"
marker = "python_version >= '3.12'"
wheels = [{ name = "click-8.1.7-py3-none-any.whl", hashes = { sha256 = "ae74fb96c20a0277a1d615f1e4d73c8414f5a98db8b799a7931d1582f3390c28" } }]
TOML
rc=0
"$ENVBISECT" state "$T/pylock.toml" --python 3.11 >/dev/null 2>"$T/state.err" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; cat "$T/state.err"; exit 1; }
sed -n 2p "$T/state.err" >"$T/hint1.txt"
expect_contains "$T/hint1.txt" "hint: the lock has packages for CPython 3.12"
expect_contains "$T/hint1.txt" "add --python 3.12"

W="$T/wheels"
mkdir -p "$W"
for v in 1.0 1.1 2.0; do
  mkdir -p "$T/src/p-$v/p" && echo "V = '$v'" >"$T/src/p-$v/p/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name p --version "$v" --src "$T/src/p-$v" --out "$W" >/dev/null
done
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 2}' >"$T/recipe.json"
echo 'import json; print(json.dumps({"tokens_per_s": 1000.0}))' >"$T/bench.py"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "1.5"}}' >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --offline -o "$T/r1" \
  >/dev/null 2>"$T/wheel.err" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; cat "$T/wheel.err"; exit 1; }
grep "^hint: " "$T/wheel.err" >"$T/hint2.txt"
expect_contains "$T/hint2.txt" "nearest builds found: p 1.1, 2.0, 1.0"
expect_contains "$T/hint2.txt" "--wheels DIR"

echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "2.0"}}' >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" -o "$T/r2" \
  >/dev/null 2>"$T/metric.err" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; cat "$T/metric.err"; exit 1; }
grep "^hint: " "$T/metric.err" >"$T/hint3.txt"
expect_contains "$T/hint3.txt" "the recipe's \"metric\" key reads \"m\""
expect_contains "$T/hint3.txt" "the first run's logs: $T/r2/attempts/"
echo "cli_errors_give_hints: ok"
