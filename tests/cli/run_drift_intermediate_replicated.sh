#!/usr/bin/env bash
# Drift on a shared machine does not turn an innocent difference into a partial cause. a 2.0 is the
# cause (5x slower), b 2.0 is harmless. After the anchors' ten runs the machine gets 40 % slower (as
# when another job starts beside ours), so b measures between the anchors' early runs: intermediate
# against the pooled anchors. Replicated beside fresh anchor runs it is good, and the run finds {a}.
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
import json, math, os, a, b
from runcount import count_run
# Count this run among all runs of the search (runs are one at a time here).
n = count_run("runs")
machine = 1.0 if n <= 10 else 0.6               # another job starts after the anchors
noise = 1.0 + 0.03 * math.sin(2.3 * n)          # a few percent, deterministic
print(json.dumps({"m": (200.0 if a.NEW else 1000.0) * machine * noise}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "direction": "higher", "repeats": 3}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"a": "1.0", "b": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"a": "2.0", "b": "2.0"}}' >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 0 ]] || { echo "expected exit 0, got $rc"; cat "$T/out.txt" "$T/err.txt"; exit 1; }
expect_contains "$T/out.txt" "packages/a 1.0 -> 2.0"
"$PY" - "$T/run/result.json" "$T/run/journal.jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["found"] is True, r
cause = json.dumps(r.get("cause"))
assert "packages/a" in cause or '"a"' in cause, cause
assert '"b"' not in cause and "packages/b" not in cause, cause
# b was first judged intermediate on the pooled anchors, then replicated beside fresh anchor runs.
replicated = [d for d in map(json.loads, open(sys.argv[2])) if d.get("type") == "decision" and d.get("replicated_rounds")]
assert replicated, "no decision was replicated"
assert all(d["verdict"] != "intermediate" for d in replicated), replicated
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
