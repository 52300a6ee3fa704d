#!/usr/bin/env bash
# A thread count alone is the cause (a race that bites from 3 threads up): `envbisect run` isolates
# threads/workers among an innocent env var and data size, bisects the numbers axis 1..6 to the first
# bad count 3, and the probes say 1 and 2 are good.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys, time
threads = int(sys.argv[1])
time.sleep(0.02)
print(json.dumps({"m": (200.0 if threads >= 3 else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{threads.workers}"], "metric": "m", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"threads\": {\"workers\": $1}, \"env\": {\"E\": \"$2\"}, \"data\": {\"rows\": $3}}"
}
state 1 a 10 >"$T/good.json"
state 6 b 20 >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (1 difference):"
expect_contains "$T/out.txt" "threads/workers 1 -> 6"
expect_contains "$T/out.txt" "inside threads/workers: first bad 3, last good 2"
expect_contains "$T/out.txt" "when it bites (threads/workers): 1: good, 2: good, 3: bad"
