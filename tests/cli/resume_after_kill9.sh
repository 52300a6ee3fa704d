#!/usr/bin/env bash
# Kill a real `envbisect run` with SIGKILL at random moments (20 trials in CI, about 5 s each on a loaded
# 2-core machine; TRIALS=50 for the issue's 50, measured in docs/RELIABILITY.md); `envbisect resume` then
# finishes with the same cause, reusing every attempt finished before the kill (none is lost or rerun),
# and `envbisect replay` recomputes the same decisions from the journal. The trials are counted: most
# must really resume, and some of those after a kill in the middle of the search (a run that never
# wrote run.json, or a resume that reruns everything, fails here instead of passing every trial by).
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
TRIALS="${TRIALS:-20}"
RANDOM=20261129  # reproducible kill moments
resumed=0    # trials that left a run folder, resumed to the same cause
mid_search=0 # of those, killed with attempts journaled and no result yet

for trial in $(seq 1 "$TRIALS"); do
  run="$T/run$trial"
  "$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$run" >"$T/first$trial.txt" 2>&1 &
  pid=$!
  # Between 50 ms and 2 s: before the anchors, mid-attempt, mid-search, or after the end.
  sleep "$(printf '0.%03d' $((RANDOM % 1000)))"; sleep "$(printf '0.%03d' $((RANDOM % 1000 + 50)))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [[ ! -f "$run/run.json" ]]; then
    # Killed before anything was written: nothing to resume, nothing lost. A journal here would be
    # a run that cannot be resumed.
    [[ ! -e "$run/journal.jsonl" ]] || { echo "trial $trial: a journal but no run.json: cannot resume"; exit 1; }
    continue
  fi
  finished=$(grep -c '"type":"attempt"' "$run/journal.jsonl" 2>/dev/null || true)
  cp "$run/journal.jsonl" "$T/before$trial.jsonl" 2>/dev/null || : >"$T/before$trial.jsonl"
  [[ -f "$run/result.json" || ${finished:-0} -eq 0 ]] || mid_search=$((mid_search + 1))
  "$ENVBISECT" resume "$run" >"$T/resume$trial.txt" 2>&1 || { cat "$T/resume$trial.txt"; exit 1; }
  "$PY" - "$run" "$T/before$trial.jsonl" "$finished" <<'PY'
import json, sys
run, before_path, finished = sys.argv[1], sys.argv[2], int(sys.argv[3] or 0)
result = json.load(open(f"{run}/result.json"))
assert sorted(c["name"] for c in result["cause"]) == ["FLAG_A", "FLAG_B"], result["cause"]
assert result["verified"] == {"forward": True, "reverse": True}, result["verified"]
# Every attempt finished before the kill is still in the journal, byte for byte, and was reused.
before = [l for l in open(before_path).read().split("\n")[:-1] if l]
after = open(f"{run}/journal.jsonl").read().split("\n")
assert after[:len(before)] == before, "the journal lost or changed records written before the kill"
assert result["attempts_reused"] == finished, (result["attempts_reused"], finished)
PY
  "$ENVBISECT" replay "$run" >"$T/replay$trial.txt"
  expect_contains "$T/replay$trial.txt" "same cause and verification"
  resumed=$((resumed + 1))
done
echo "resumed $resumed of $TRIALS trials, $mid_search of them killed mid-search"
(( resumed * 2 >= TRIALS )) || { echo "fewer than half the trials resumed: the test tested little"; exit 1; }
(( mid_search * 4 >= TRIALS )) || { echo "fewer than a quarter of the trials were killed mid-search"; exit 1; }
