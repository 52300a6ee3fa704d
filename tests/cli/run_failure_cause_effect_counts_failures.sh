#!/usr/bin/env bash
# A cause that makes every run fail is described by its failures ("fails 6 of 6 runs (good: 0 of
# 10)") in the terminal, result.json and the report, not by the metric of runs that finished (there
# are none), nor left out. One of eight variables is the cause; runs take a fixed time.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys, time
time.sleep(0.05)
if os.environ.get("E5") == "b":
    sys.exit("RuntimeError: compile race")
print(json.dumps({"m": 1000.0}))
PY
eight_var_inputs
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "env/E5 a -> b"
grep -E "^effect of the cause: fails [0-9]+ of [0-9]+ runs \(good: 0 of [0-9]+\)$" "$T/out.txt" ||
  { echo "no failure effect line" >&2; cat "$T/out.txt" >&2; exit 1; }
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["effect"]
f = e["failures"]
assert e["of"] == "cause" and f["to"] == f["to_runs"] > 0 and f["from"] == 0 and f["from_runs"] > 0, e
assert "ratio" not in e, e
PY
"$ENVBISECT" report "$T/run" >/dev/null
expect_contains "$T/run/report.md" "the cause fails"
