#!/usr/bin/env bash
# Anchors that look like a pass/fail test run where each run tells most per second: here every bad run
# crashes after 0.6 s (a race after a cold compile), every good run passes in 0.2 s, and the anchors
# reach the preflight's level on ten runs with more good runs than bad (7 + 3 or 6 + 4 by the runs'
# times, python's start included), in less run time than 5 + 5 of the same runs would take. The
# search, its answer and its verification are those of interleaved anchors; the answer's good side
# passes 5 runs as before, not the good anchor's extra ones.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
import time
fail = threads >= 3
time.sleep(0.6 if fail else 0.2)
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 0 ]] || { echo "expected exit 0, got $rc"; cat "$T/out.txt" "$T/err.txt"; exit 1; }
grep -qE "^anchors \(good [67] runs, bad [34], each next run where it told most per second\)" "$T/out.txt" ||
  { echo "anchors not run by value per second:"; cat "$T/out.txt"; exit 1; }
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
result = json.load(open(f"{run}/result.json"))
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
assert [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
preflight = next(r for r in journal if r["type"] == "preflight")
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
# The answer's good side passed as many runs as five anchors each would have asked, no more.
verify = next(r["verify"] for r in journal if r["type"] == "verify")
assert verify["good_runs"] == 5 and verify["ok"], verify
PY
grep -qE "anchors \(good [67] runs, bad [34], each next run" "$T/run/report.md" || { echo "report.md lacks the anchor counts"; exit 1; }
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
