#!/usr/bin/env bash
# --budget stops a run before a candidate or run that would pass it, with an honest partial answer:
# exit 1, "found": false, "outcome": "budget", what is left and how to resume; `replay` recomputes the
# stopped session, and the journal stays resumable: `resume --budget` with room to spare finishes it,
# reusing every run. Each benchmark
# run takes a fixed 0.3 s, its metric set by its inputs (one variable of eight is the cause).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, time
time.sleep(0.3)
print(json.dumps({"m": (200.0 if os.environ.get("E3") == "b" else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
eight_var_inputs
rc=0
(cd "$T" && "$ENVBISECT" run good.json bad.json --recipe recipe.json --out run --budget 6s) \
  >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc == 1 ]] || { echo "exit $rc, expected 1" >&2; cat "$T/out.txt" >&2; exit 1; }
expect_contains "$T/out.txt" "stopped at the budget (6 s)"
expect_contains "$T/out.txt" "to settle it: envbisect resume run --budget"
# The report's headline gives the command the run printed, the folder as typed and the budget in minutes.
resume=$(sed -n 's/^to settle it: \(envbisect resume run --budget [0-9]*m\) .*/\1/p' "$T/out.txt")
[[ -n $resume ]] || { cat "$T/out.txt"; exit 1; }
expect_contains "$T/run/report.md" "stopped at its --budget: no verified cause yet ($resume continues it, reusing every run)"
expect_contains "$T/run/report.md" "to settle it: $resume continues it"
"$PY" - "$T/run" <<'PY'
import json, sys
r = json.load(open(f"{sys.argv[1]}/result.json"))
assert r["found"] is False and r["outcome"] == "budget", r["outcome"]
b = r["budget"]
assert b["budget_s"] == 6 and b["worst_case_left"]["decisions"] > 0 and "resume" in r["settle"], b
journal = [json.loads(l) for l in open(f"{sys.argv[1]}/journal.jsonl")]
stop = [x for x in journal if x["type"] == "budget"]
assert len(stop) == 1 and stop[0]["elapsed_s"] + stop[0]["next_cost_s"] > 6, stop
decided = [x for x in journal if x["type"] == "decision"]
assert len(decided) == r["decisions"] and all(x["verdict"] != "skip" for x in decided), decided
PY
cp "$T/run/result.json" "$T/stopped.json"
# The stopped session replays to the same decisions, stopping where it stopped.
"$ENVBISECT" replay "$T/run" >"$T/replay.txt" 2>&1
"$ENVBISECT" resume "$T/run" --budget 10m >"$T/resume.txt" 2>"$T/err2.txt"
expect_contains "$T/resume.txt" "env/E3 a -> b"
"$PY" - "$T/run/result.json" "$T/stopped.json" <<'PY'
import json, sys
r, stopped = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert r["found"] is True and r["outcome"] == "found", r["outcome"]
assert [c["name"] for c in r["cause"]] == ["E3"], r["cause"]
assert r["attempts_reused"] >= stopped["attempts_run"] > 0, (r["attempts_reused"], stopped["attempts_run"])
PY
