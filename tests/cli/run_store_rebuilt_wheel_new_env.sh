#!/usr/bin/env bash
# Shared environments are keyed by the content of their wheels: after p-2.0's wheel is rebuilt in
# place (same file name, now as fast as 1.0), a second run with the same store builds a new
# environment and finds good and bad alike (exit 3) instead of measuring the old build again.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
wheel() {  # wheel VERSION SLOW
  rm -rf "$T/src"
  mkdir -p "$T/src/p"
  echo "SLOW = $2" >"$T/src/p/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name p --version "$1" --src "$T/src" --out "$W" >/dev/null
}
wheel 1.0 False
wheel 2.0 True
cat >"$T/bench.py" <<'PY'
import json, p
# No noise: the second run compares two equal builds, and any noise would let the rank test tell
# them apart by chance in a few runs of a hundred (its level is spent over several looks).
print(json.dumps({"m": 200.0 if p.SLOW else 1000.0}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "2.0"}}' >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run1" >"$T/out1.txt"
expect_contains "$T/out1.txt" "cause"

wheel 2.0 False  # rebuilt in place: same name and version, new bytes
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run2" >"$T/out2.txt" 2>"$T/err2.txt" || rc=$?
[[ $rc -eq 3 ]] || { echo "expected exit 3 (the rebuilt 2.0 is as fast as 1.0), got $rc"; cat "$T/out2.txt" "$T/err2.txt"; exit 1; }
"$PY" - "$T/run1/journal.jsonl" "$T/run2/journal.jsonl" <<'PY'
import json, sys
second = [json.loads(l) for l in open(sys.argv[2]) if '"type":"build"' in l]
assert any("reused" not in b for b in second), "the rebuilt wheel's environment was built anew"
PY
# Anchors that cannot be told apart finish the run (exit 3): the report says so, not "resume it to
# continue", and resume gives the same answer without running anything again.
expect_contains "$T/run2/report.md" "finished without a cause: the anchors could not be told apart"
not grep -q "did not finish" "$T/run2/report.md"
before=$(grep -c '"type":"attempt"' "$T/run2/journal.jsonl")
rc=0
"$ENVBISECT" resume "$T/run2" >"$T/resume.txt" 2>&1 || rc=$?
[[ $rc -eq 3 ]] || { echo "resume of a finished exit-3 run: expected exit 3, got $rc"; cat "$T/resume.txt"; exit 1; }
[[ $(grep -c '"type":"attempt"' "$T/run2/journal.jsonl") -eq $before ]] || { echo "resume ran attempts again"; exit 1; }
