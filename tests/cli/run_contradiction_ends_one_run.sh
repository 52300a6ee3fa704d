#!/usr/bin/env bash
# A one-run search that would end without an answer because a race got one candidate's single run
# wrong: {E0..E3} passed its one run although it holds E3, the cause, and a smaller set holding E3
# failed. No deterministic test whose effect grows with the differences gives both verdicts, so the
# candidate that passed runs again, its runs disagree, failure rates decide from there, and the search,
# asked again on every run so far, names E3 (before: "ambiguous" after 16 runs).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys
from runcount import count_run
held = [os.environ.get("E%d" % i) == "b" for i in range(8)]
fail = held[3]
if held == [True] * 4 + [False] * 4 and count_run("first-half") == 1:
    fail = False  # the race spares this candidate's first run
if fail:
    sys.stderr.write("RuntimeError: race in compile\n")
    sys.exit(1)
print(json.dumps({"m": 1000.0 * (1 + count_run("metric") % 7 / 100)}))
PY
eight_var_inputs
race_run 0 --no-probe
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
pairs = [r for r in journal if r["type"] == "contradiction"]
assert pairs and pairs[0]["good_side"] == [0, 1, 2, 3] and 3 in pairs[0]["bad_side"], pairs
modes = [r["mode"] for r in journal if r["type"] == "mode"]
assert modes[-1] == "rate", modes
result = json.load(open(f"{run}/result.json"))
assert result["found"] and [d["name"] for d in result["cause"]] == ["E3"], (result["outcome"], result["cause"])
PY
expect_contains "$T/out.txt" "which it holds, failed: a one-run verdict may be a race's; both run again"
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
