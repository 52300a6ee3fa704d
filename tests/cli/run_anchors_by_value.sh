#!/usr/bin/env bash
# Anchors brought to the preflight's level while they look like a pass/fail test run where each run
# tells most per second: here every bad-anchor run crashes after 0.6 s (a race after a cold compile),
# every good run passes in 0.2 s. The anchors' first two runs each look deterministic, so the search
# starts on them with one run per candidate; three warm workers fail only every other run, their
# re-run disagrees, and the anchors are completed first: on ten runs with more good runs than bad (7 + 3
# or 6 + 4 by the runs' times, python's start included), in less run time than 5 + 5 of the same runs
# would take. Failure rates then name the race.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
import time
fail = threads >= 3 and (not warm or count_run("warm-3") % 2 == 1)
time.sleep(0.6 if threads >= 3 and not warm else 0.2)
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0 1" --no-probe
grep -qE "^anchors \(good [67] runs, bad [34], each next run where it told most per second\)" "$T/out.txt" ||
  { echo "anchors not run by value per second:"; cat "$T/out.txt"; exit 1; }
expect_contains "$T/out.txt" "anchors look deterministic so far"
expect_contains "$T/out.txt" "runs disagreed: the anchors are brought to the preflight's level first"
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
result = json.load(open(f"{run}/result.json"))
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
assert not result["found"] or [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
first = next(r for r in journal if r["type"] == "preflight")
assert first["provisional"] and first["good_runs"] == first["bad_runs"] == 2, first
preflight = next(r for r in journal if r["type"] == "preflight" and not r.get("provisional"))
good, bad = preflight["good_runs"], preflight["bad_runs"]
assert good + bad == 10 and good > bad >= 3 and preflight["anchor_runs"] == bad, preflight
assert preflight["preflight"]["distinguishable"], preflight
# Less run time than five of each: the anchors' attempts are the first ones (good first).
attempts = [r for r in journal if r["type"] == "attempt"]
hashes = [attempts[0]["candidate"], attempts[1]["candidate"]]
walls = {h: [r["wall_s"] for r in attempts if r["candidate"] == h] for h in hashes}
g, b = walls[hashes[0]][:good], walls[hashes[1]][:bad]
assert len(g) == good and len(b) == bad, (len(g), len(b))
spent, even = sum(g) + sum(b), 5 * sum(g) / good + 5 * sum(b) / bad
assert spent < even, (spent, even)
PY
grep -qE "anchors \(good [67] runs, bad [34], each next run" "$T/run/report.md" || { echo "report.md lacks the anchor counts"; exit 1; }
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
