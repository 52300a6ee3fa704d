#!/usr/bin/env bash
# A good side of the answer must pass several runs, and a race that bites it in some shows soonest
# where runs cost least: the good sides run side by side at about equal seconds each, so the cheaper
# one runs more often, and first. Here three warm workers pass their first three runs and then fail
# every other one, a cold cache costs six times a warm run, and the one-run search (anchors look
# deterministic) first takes the race for an interaction with the cache. Verifying it, the warm part
# {workers} (cheap) runs twice before the cold part {caches} (dear) would run once: its fourth run
# disagrees before the cold part has run again, the verification of an answer already refuted stops
# there, and failure rates decide from there. Re-run in the answer's order, all
# runs at once and every check to the end, the cold part would have passed 13 runs or more (several
# times the run time each) for nothing, as on one GPU where that cost 140 s of a 500 s budget.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
import time
if threads >= 3 and not warm:
    fail = True
elif threads >= 3:
    n = count_run("warm-3")
    fail = n >= 4 and n % 2 == 0
time.sleep(0.1 if warm else 0.6)
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0 1" --no-probe
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "the test is not deterministic after all"
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
decisions = [d for d in journal if d["type"] == "decision"]
caches = next(d["candidate"] for d in decisions if d["label"] == "{caches/c}")
workers = next(d["candidate"] for d in decisions if d["label"] == "{threads/workers}")
# Attempts of each part before failure rates took over.
before = {caches: 0, workers: 0}
for r in journal:
    if r["type"] == "mode" and r["mode"] == "rate":
        break
    if r["type"] == "attempt" and r["candidate"] in before:
        before[r["candidate"]] += 1
assert before[workers] == 4, before      # three passes, then the run that disagrees
assert before[caches] <= 2, before       # the search's two runs only
# The part that disagreed spent none of the bad anchor runs the parts' bar planned: the bad anchor ran
# only in the preflight and once as the answer's bad side.
# The anchors as completed for statistics (their first two runs each were taken as deterministic).
preflight = next(r for r in journal if r["type"] == "preflight" and not r.get("provisional"))
bad = [r for r in journal if r["type"] == "attempt"][1]["candidate"]
mode_at = next(i for i, r in enumerate(journal) if r["type"] == "mode" and r["mode"] == "rate")
bad_before_rates = sum(1 for r in journal[:mode_at] if r["type"] == "attempt" and r["candidate"] == bad)
assert bad_before_rates <= preflight["bad_runs"] + 1, (bad_before_rates, preflight["bad_runs"])
# The interaction refuted, its other part is not held to 13 passes.
assert not [d for d in decisions if d["label"] == "part of the cause {caches/c}"], "the refuted answer's other part was checked"
result = json.load(open(f"{run}/result.json"))
assert [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
