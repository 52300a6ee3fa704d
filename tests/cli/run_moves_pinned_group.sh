#!/usr/bin/env bash
# Packages pinned to each other with == (kern 2.0 requires kernlib==2.0, as torch pins triton) move
# together as one unit: the plan says so, no candidate mixes them (which would be unresolvable), and
# the cause is the pair, next to an innocent package and an env var. Inside the pair's version range
# (1.5 and 1.7 exist, each pinning its own kernlib) the refinement moves both and names 1.7.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
mkdir -p "$W" "$T/src"
for v in 1.0 1.5 1.7 2.0; do
  mkdir -p "$T/src/kern-$v/kern" "$T/src/kernlib-$v/kernlib"
  echo "SLOW = '$v' in ('1.7', '2.0')" >"$T/src/kern-$v/kern/__init__.py"
  echo "VERSION = '$v'" >"$T/src/kernlib-$v/kernlib/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name kern --version "$v" --src "$T/src/kern-$v" --requires "kernlib==$v" --out "$W" >/dev/null
  "$PY" "$SRC/scripts/make_wheel.py" --name kernlib --version "$v" --src "$T/src/kernlib-$v" --out "$W" >/dev/null
  mkdir -p "$T/src/other-$v/other" && echo "" >"$T/src/other-$v/other/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name other --version "$v" --src "$T/src/other-$v" --out "$W" >/dev/null
done
cat >"$T/bench.py" <<'PY'
import json, os, time, kern, kernlib, other
time.sleep(0.02)
print(json.dumps({"m": (200.0 if kern.SLOW else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"kern\": \"$1\", \"kernlib\": \"$1\", \"other\": \"$1\"}, \"env\": {\"E\": \"$2\"}}"
}
state 1.0 a >"$T/good.json"
state 2.0 b >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" --dry-run >"$T/plan.txt"
expect_contains "$T/plan.txt" "moved together (pinned): {packages/kern, packages/kernlib}"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/kern 1.0 -> 2.0"
expect_contains "$T/out.txt" "packages/kernlib 1.0 -> 2.0"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"
expect_contains "$T/out.txt" "inside packages/kern: first bad 1.7, last good 1.5"
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
deltas = [r for r in records if r["type"] == "start"][0]["deltas"]
kern, kernlib = [i for i, d in enumerate(deltas) if d["name"] in ("kern", "kernlib")]
for r in records:
    if r["type"] == "decision":
        assert (kern in r["applied"]) == (kernlib in r["applied"]), ("a candidate split the pinned pair", r["applied"])
    if r["type"] == "build":
        assert r["ok"], r  # no unresolvable mix was ever built
(refine,) = [r["refine"] for r in records if r["type"] == "refine"]
assert refine["points"] == ["1.0", "1.5", "1.7", "2.0"], refine
assert refine["found"] and refine["first_bad"] == "1.7", refine
PY
