#!/usr/bin/env bash
# Runs that disagree only at the boundary re-run, after the search has ended in one-run mode, still
# send the run to failure rates for everything: the cause and its refinement are decided again on
# enough runs (every run kept), instead of the answer resting on the one-run verdicts. Without probes
# (--no-probe) the thread count is refined by single runs, which is where the disagreement shows. Three workers fail every
# run; two fail every other run (the first one, so the refinement's single run says bad and the
# boundary re-run disagrees); one never fails. E is a harmless second difference.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
fail = threads >= 3
if threads == 2:
    fail = count_run("runs-2") % 2 == 1
PY
state() {
  system_state "\"threads\": {\"workers\": $1}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"cold\"}},
                \"env\": {\"E\": \"$2\"}"
}
state 1 a >"$T/good.json"
state 3 b >"$T/bad.json"
race_run "0 1" --no-probe
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "the test is not deterministic after all"
"$PY" - "$T/run/result.json" "$T/run/journal.jsonl" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
journal = [json.loads(l) for l in open(sys.argv[2])]
assert result["mode"] == "rate", result["mode"]
switch = max(i for i, r in enumerate(journal) if r["type"] == "mode")
assert journal[switch]["mode"] == "rate", journal[switch]
later = [r for r in journal[switch:] if r["type"] == "decision"]
isolate = [r for r in later if r["stage"] == "isolate"]
assert isolate, "no isolation question was asked again after leaving one-run mode"
assert all(r["runs"] >= 2 for r in isolate), [(r["label"], r["runs"]) for r in isolate]
assert any(r["stage"] == "refine" for r in later), "the refinement was not made again"
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
