#!/usr/bin/env bash
# A search begun on one-run verdicts (the anchors looked deterministic) is asked again from the start,
# on failure rates, once a run disagrees. What the first search would ask after that point only
# finishes an answer that is thrown away: here the re-check of its answer {caches, workers}, where the
# cause itself passes its second run, would go on to hold the answer's parts and "bad minus the
# causes" good on failure rates (ten runs and more each). They are answered without a run, and the
# second search starts right after the run that disagreed.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
x = os.environ.get("X", "0")
fail = threads >= 3 and not warm
if fail and x == "0":
    # The cause alone on good passes its second run: the three repeats after the first run's one.
    fail = not 2 <= count_run("cause") <= 4
PY
system_state "\"threads\": {\"workers\": 1}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"warm\"}}, \"env\": {\"X\": \"0\"}" >"$T/good.json"
system_state "\"threads\": {\"workers\": 3}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"cold\"}}, \"env\": {\"X\": \"1\"}" >"$T/bad.json"
race_run "0 1" --no-probe
expect_contains "$T/out.txt" "anchors look deterministic"
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
switch = next(i for i, r in enumerate(journal) if r["type"] == "mode" and r["mode"] == "rate")
after = journal[switch + 1:]
# The first decision after the switch is the candidate whose runs disagreed; the next one is the second
# search's first question.
decisions = [r for r in after if r["type"] == "decision"]
assert len(decisions) >= 2, decisions
assert decisions[0]["stage"] == "recheck", decisions[0]
assert decisions[1]["stage"] == "isolate", ("the abandoned search asked on", [(d["stage"], d["label"]) for d in decisions[:6]])
result = json.load(open(f"{run}/result.json"))
assert not result["found"] or sorted(d["name"] for d in result["cause"]) == ["c", "workers"], result["cause"]
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
