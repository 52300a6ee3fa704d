#!/usr/bin/env bash
# No candidate may change what another measures, bytecode included. The store compiles each module
# once (unchecked-hash .pyc, which Python never rewrites) and hard-links it into every environment.
# Here knob 2.0, on import, rewrites the .pyc of another package (victim, the same build on both
# sides) in place, as root can through the read-only link: every environment linking it would run
# VALUE = 5 instead of its source's 1, the good anchor turning slow after the bad side's first run.
# The environment check must see the changed .pyc, rebuild, and the run must name knob, with every
# good-side run measuring victim as built. Run as root (the demo and GPU boxes are).
source "$(dirname "$0")/common.sh"
[[ $(id -u) -eq 0 ]] || skip "needs root: a user's benchmark cannot write through the read-only store files"
W="$T/wheels"
make() {  # make NAME VERSION 'module source'
  mkdir -p "$T/src-$1-$2/$1"
  printf '%s\n' "$3" >"$T/src-$1-$2/$1/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name "$1" --version "$2" --src "$T/src-$1-$2" --out "$W" >/dev/null
}
make victim 1.0 'VALUE = 1'
make other 1.0 'O = 1'
make other 1.1 'O = 2'
make knob 1.0 'K = 1'
make knob 2.0 'K = 2
import importlib.util, marshal
spec = importlib.util.find_spec("victim")
pyc = importlib.util.cache_from_source(spec.origin)
with open(pyc, "r+b") as f:
    header = f.read(16)
    f.seek(0)
    f.write(header + marshal.dumps(compile("VALUE = 5\n", spec.origin, "exec")))
    f.truncate()'
cat >"$T/bench.py" <<'PY'
import json, os
import knob
import victim
print(json.dumps({"m": 1000.0 / victim.VALUE * (1 + os.getpid() % 7 / 100), "value": victim.VALUE}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"victim": "1.0", "other": "1.0", "knob": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"victim": "1.0", "other": "1.1", "knob": "2.0"}}' >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 0 ]] || { echo "expected exit 0, got $rc"; cat "$T/out.txt" "$T/err.txt"; exit 1; }
expect_contains "$T/out.txt" "packages/knob 1.0 -> 2.0"
"$PY" - "$T/run" <<'PY'
import json, os, sys
run = sys.argv[1]
records = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
result = json.load(open(f"{run}/result.json"))
assert [d["name"] for d in result["cause"]] == ["knob"], result["cause"]
damaged = [r for r in records if r["type"] == "build" and "damaged" in r]
assert damaged, "no rebuild after a benchmark rewrote a store .pyc"
assert all(any(f.endswith(".pyc") for f in r["damaged"]["files"]) for r in damaged), damaged
# Every run without knob 2.0 measured victim as built (VALUE 1), every run with it VALUE 5.
deltas = next(r for r in records if r["type"] == "start")["deltas"]
knob = next(i for i, d in enumerate(deltas) if d["name"] == "knob")
runs = [r for r in records if r["type"] == "attempt" and r["status"] == "ok"]
assert runs and any(knob not in r["applied"] for r in runs), runs
for r in runs:
    assert (r["metric"] < 300) == (knob in r["applied"]), (r["applied"], r["metric"])
PY
