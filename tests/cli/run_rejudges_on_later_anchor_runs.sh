#!/usr/bin/env bash
# Verdicts are judged again on all anchor runs before the answer is trusted. a 2.0 makes a run 3x
# slower only sometimes: in each of the bad anchor's first five runs, then every other run. On five
# all-slow runs the bad anchor looks like a plain shift, and candidates with a (half fast, half slow)
# fit neither anchor: unstable. The anchors are re-measured during the search; on all their runs the
# bad anchor shows both modes, the verdicts no longer hold, the search asks again, and finds {a}.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
wheel() {  # wheel NAME VERSION NEW
  rm -rf "$T/src"
  mkdir -p "$T/src/$1"
  echo "NEW = $3" >"$T/src/$1/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name "$1" --version "$2" --src "$T/src" --out "$W" >/dev/null
}
for p in a b c d e f; do
  wheel "$p" 1.0 False
  wheel "$p" 2.0 True
done
cat >"$T/bench.py" <<'PY'
import json, math, os, a
# Count this run among all runs of the search (runs are one at a time here).
counter = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs.log")
with open(counter, "a") as f:
    f.write("x")
n = os.path.getsize(counter)
slow = a.NEW and (n <= 10 or n % 2 == 0)
noise = 1.0 + 0.03 * math.sin(2.3 * n)  # a few percent, deterministic
print(json.dumps({"m": (300.0 if slow else 1000.0) * noise}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "direction": "higher", "repeats": 3}' >"$T/recipe.json"
old='"a": "1.0", "b": "1.0", "c": "1.0", "d": "1.0", "e": "1.0", "f": "1.0"'
echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {$old}}" >"$T/good.json"
echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {${old//1.0/2.0}}}" >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 0 ]] || { echo "expected exit 0, got $rc"; cat "$T/out.txt"; exit 1; }
expect_contains "$T/out.txt" "no longer holds: the search asks its questions again"
expect_contains "$T/out.txt" "cause (1 difference):"
expect_contains "$T/out.txt" "packages/a 1.0 -> 2.0"
grep -q '"type":"rejudge"' "$T/run/journal.jsonl"
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
