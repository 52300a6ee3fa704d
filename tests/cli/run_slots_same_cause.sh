#!/usr/bin/env bash
# `run --slots 2` (local) measures two attempts at once and finds the same cause, verified the same
# way, as the serial run: an interaction {alpha 1.0 -> 2.0, gamma 1.0 -> 2.0} among four differences.
# The benchmark's metric is set by its packages (it sleeps; CPU contention between slots cannot move
# it), so the two runs must agree exactly; the journal shows attempts overlapping in time and each
# candidate's attempts recorded in attempt order.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
mkdir -p "$W"
for name in alpha beta gamma; do
  for v in 1.0 2.0; do
    mkdir -p "$T/src/$name-$v/$name"
    echo "MAJOR = ${v%%.*}" >"$T/src/$name-$v/$name/__init__.py"
    "$PY" "$SRC/scripts/make_wheel.py" --name "$name" --version "$v" --src "$T/src/$name-$v" --out "$W" >/dev/null
  done
done
cat >"$T/bench.py" <<'PY'
import json, os, time, alpha, beta, gamma
time.sleep(0.15)
slow = alpha.MAJOR == 2 and gamma.MAJOR == 2
print(json.dumps({"m": (200.0 if slow else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"alpha\": \"$1\", \"beta\": \"$1\", \"gamma\": \"$1\"}, \"env\": {\"E\": \"$2\"}}"
}
state 1.0 a >"$T/good.json"
state 2.0 b >"$T/bad.json"

for slots in 1 2; do
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
    --out "$T/run-$slots" --slots "$slots" >"$T/out-$slots.txt"
  expect_contains "$T/out-$slots.txt" "cause (2 differences, together):"
  expect_contains "$T/out-$slots.txt" "packages/alpha 1.0 -> 2.0"
  expect_contains "$T/out-$slots.txt" "packages/gamma 1.0 -> 2.0"
  expect_contains "$T/out-$slots.txt" "verified: good + cause -> bad; bad - cause -> good"
done

"$PY" - "$T/run-1/result.json" "$T/run-2/result.json" "$T/run-2/journal.jsonl" <<'PY'
import json, sys
serial, parallel = (json.load(open(p)) for p in sys.argv[1:3])
assert serial["cause"] == parallel["cause"] and serial["causes"] == parallel["causes"], (serial["cause"], parallel["cause"])
assert serial["verified"] == parallel["verified"] == {"forward": True, "reverse": True}
records = [json.loads(l) for l in open(sys.argv[3])]
spans = sorted((r["t"] - r["wall_s"], r["t"]) for r in records if r.get("type") == "attempt")
overlaps = sum(1 for a, b in zip(spans, spans[1:]) if b[0] < a[1] - 0.05)
print(f"{len(spans)} attempts, {overlaps} started before the previous one ended")
assert overlaps > 0, spans
seen = {}
for r in records:
    if r.get("type") == "attempt":
        assert r["attempt"] == seen.get(r["candidate"], 0), r
        seen[r["candidate"]] = r["attempt"] + 1
PY
