#!/usr/bin/env bash
# A renamed package is found, not left ambiguous: good has oldpkg, bad has newpkg instead (one package
# removed, one added) and c 2.0 (unrelated); the benchmark needs one of the two (exit 125 with neither)
# and is 5x slower with newpkg. Bad minus newpkg has neither, so the search asks its testable
# neighbour, bad minus newpkg keeping oldpkg, and reports the rename, both differences, as the cause
# ("coupled": oldpkg's removal), with a note saying that newpkg alone is bad.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
wheel() {  # wheel NAME VERSION
  rm -rf "$T/src"
  mkdir -p "$T/src/$1"
  echo "VERSION = '$2'" >"$T/src/$1/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name "$1" --version "$2" --src "$T/src" --out "$W" >/dev/null
}
wheel oldpkg 1.0
wheel newpkg 1.0
wheel c 1.0
wheel c 2.0
cat >"$T/bench.py" <<'PY'
import importlib.util, json, sys
import c
have_new = importlib.util.find_spec("newpkg") is not None
if not have_new and importlib.util.find_spec("oldpkg") is None:
    sys.exit(125)  # neither package: nothing to benchmark
print(json.dumps({"m": 1000.0 if have_new else 200.0}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "direction": "lower", "repeats": 3}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"oldpkg": "1.0", "c": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"newpkg": "1.0", "c": "2.0"}}' >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 0 ]] || { echo "expected exit 0 (found), got $rc"; cat "$T/out.txt" "$T/err.txt"; exit 1; }
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
names = lambda deltas: [(d["name"], d["good"], d["bad"]) for d in deltas]
assert r["found"] is True and r["outcome"] == "found", (r["outcome"], r["note"])
assert names(r["cause"]) == [("newpkg", None, "1.0"), ("oldpkg", "1.0", None)], r["cause"]
assert [names(c) for c in r["coupled"]] == [[("oldpkg", "1.0", None)]], r["coupled"]
assert r["verified"] == {"forward": True, "reverse": True}, r["verified"]
assert "untestable apart" in r["note"] and "{packages/newpkg} alone on top of good is bad" in r["note"], r["note"]
# Deltas: 0 c, 1 newpkg, 2 oldpkg. Bad minus newpkg (neither package) was skipped; its neighbour, bad
# minus newpkg keeping oldpkg (c 2.0 alone), is good: here the bisection had asked it already.
steps = {tuple(s["applied"]): s["verdict"] for s in r["steps"]}
assert steps[(0, 2)] == "skip" and steps[(0,)] == "good" and steps[(2,)] == "skip", steps
assert steps[(1, 2)] == "bad", steps  # the rename, measured whole on top of good
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
