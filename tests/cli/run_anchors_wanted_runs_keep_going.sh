#!/usr/bin/env bash
# Anchors told apart by failures at 7 runs each (bad failed 5 of 7) get the 10 runs each the
# preflight wants for anchors close for their spread; three passes of bad there undo the level (5 of
# 10 is p = 0.016 against 0.0125). The anchors then go on towards their cap, as anchors short of the
# level always do, and the run answers. Before, it refused with exit 3 at 10 runs each ("cannot tell
# good from bad ... --anchor-runs 20"), a tuning flag the default had no need of.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys
from runcount import count_run
held = [os.environ.get("E%d" % i) == "b" for i in range(8)]
if all(held):
    n = count_run("bad")
    fail = n in (1, 3, 4, 6, 7) or n > 10 and n % 2 == 1
elif not any(held):
    n = count_run("good")
    fail = False
else:
    n = count_run("".join("1" if h else "0" for h in held))
    fail = held[3] and n % 3 != 0
if fail:
    sys.stderr.write("RuntimeError: race in compile\n")
    sys.exit(1)
# The same values in the same order on every candidate: no state measures better than another.
print(json.dumps({"m": 1000.0 * (1 + n % 7 / 100)}))
PY
eight_var_inputs
race_run 0 --no-probe
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
preflight = [r for r in journal if r["type"] == "preflight"][-1]
assert preflight["good_runs"] > 10 and preflight["bad_runs"] > 10, preflight
assert preflight["preflight"]["distinguishable"], preflight
result = json.load(open(f"{run}/result.json"))
assert result["found"] and [d["name"] for d in result["cause"]] == ["E3"], (result["outcome"], result["cause"])
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
