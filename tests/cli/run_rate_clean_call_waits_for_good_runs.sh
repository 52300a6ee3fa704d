#!/usr/bin/env bash
# On failure rates a candidate that failed is called clean only against a good anchor measured on as
# many runs. 3 workers with a cold cache fail every other run (the bad anchor), 1 worker never; 3 workers
# with a warm cache fail their second run and pass from then on. The good anchor's few clean runs give
# good a regularised rate near that one failure's, and the sequential test drifts to "clean" long before
# the good anchor has the runs to tell a lower rate from good's (one H200 race: a part failing 5 of 33
# called clean against good's 0 of 7, and the interaction {caches, threads} named as the cause). Every
# clean call on a candidate with failures must rest on at least as many good runs as that candidate has.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
if threads == 3 and not warm:
    fail = count_run("cold-3") % 2 == 1
elif threads == 3:
    fail = count_run("warm-3") == 1
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0 1" --no-probe
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, re, sys
good_runs, checked = 0, 0

def check_clean_call(label, verdict, reason):
    # A clean call on runs with failures ("good: fails 1 of 20, ...") rests on as many good anchor runs.
    global checked
    m = re.match(r"good: fails (\d+) of (\d+)", reason)
    if verdict == "good" and m and int(m.group(1)) > 0:
        checked += 1
        assert good_runs >= int(m.group(2)), (label, reason, "good anchor runs", good_runs)

for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "attempt" and r["applied"] == []:
        good_runs += 1
    if r["type"] == "decision":
        check_clean_call(r["label"], r["verdict"], r["reason"])
    if r["type"] == "parts":
        for p in r["parts"]:
            check_clean_call(p["label"], p["verdict"], p["reason"])
assert checked > 0, "no clean call on a candidate with failures: the test did not reach its case"
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
