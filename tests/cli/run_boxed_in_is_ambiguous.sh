#!/usr/bin/env bash
# A search boxed in by untestable mixes ends ambiguous, never found: a and b both change, bad is 5x
# slower, and the benchmark declares every mix of old and new untestable (exit 125, as a build that
# cannot load one without the other would). No candidate can say which of them matters, so the run
# exits 1 with "found": false, the sets the cause could be, and what would settle it.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
wheel() {  # wheel NAME VERSION NEW
  rm -rf "$T/src"
  mkdir -p "$T/src/$1"
  echo "NEW = $3" >"$T/src/$1/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name "$1" --version "$2" --src "$T/src" --out "$W" >/dev/null
}
wheel a 1.0 False
wheel a 2.0 True
wheel b 1.0 False
wheel b 2.0 True
cat >"$T/bench.py" <<'PY'
import json, sys, a, b
if a.NEW != b.NEW:
    sys.exit(125)  # a mix: the benchmark cannot test it
print(json.dumps({"m": 1000.0 if a.NEW else 200.0}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "direction": "higher", "repeats": 3}' >"$T/recipe.json"
# Higher is better: the new builds (2.0) measure 1000, the old ones 200, so here 1.0 is the bad state.
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"a": "2.0", "b": "2.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"a": "1.0", "b": "1.0"}}' >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 1 ]] || { echo "expected exit 1 (ambiguous), got $rc"; cat "$T/out.txt" "$T/err.txt"; exit 1; }
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["found"] is False, r
assert r.get("outcome") == "ambiguous", r.get("outcome")
could = r.get("could_be") or []
assert len(could) >= 2, could
assert "skip" in json.dumps(r.get("settle", "")) or "testable" in json.dumps(r.get("settle", "")), r.get("settle")
PY
not grep -q "^verified" "$T/out.txt"
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
