#!/usr/bin/env bash
# The bad anchor runs that the parts' bar assumed (run_parts_top_up_bad_anchor.sh) stop at the first
# of them that passes. That pass shows the test envbisect took as deterministic is not: one-run mode
# ends and failure rates decide from there, every run kept. The answer is never "the anchors no longer
# differ" (good passed 6 of 6, bad failed 5 of 6: they differ by failure rate). Here the bad state
# crashes on every run except the first one made after the parts have run 20 times between them (the
# verification's top-up).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
import time
bad = threads >= 3 and not warm
part = (threads >= 3) != (not warm)
if part:
    count_run("part")
fail = bad
if bad and os.path.exists(os.path.join(here, "part.log")):
    parts = os.path.getsize(os.path.join(here, "part.log"))
    marker = os.path.join(here, "bad-passed")
    if parts >= 20 and not os.path.exists(marker):
        open(marker, "w").close()
        fail = False
time.sleep(0.45 if fail else 0.15)
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0 1" --no-probe
[[ -e "$T/bad-passed" ]] || { echo "the bad anchor never ran after the parts"; cat "$T/out.txt"; exit 1; }
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
attempts = [r for r in journal if r["type"] == "attempt"]
bad = attempts[1]["candidate"]
bad_runs = [i for i, r in enumerate(attempts) if r["candidate"] == bad]
passed = [i for i in bad_runs if attempts[i]["status"] == "ok"]
assert len(passed) == 1, [attempts[i]["status"] for i in bad_runs]
after = attempts[passed[0] + 1:]
# No planned bad run follows the one that passed: what comes next is the parts, held to the new bar.
assert after and after[0]["candidate"] != bad, [a["candidate"][:8] for a in after[:3]]
modes = [r for r in journal if r["type"] == "mode" and r["mode"] == "rate"]
assert any(r["why"].startswith("the bad anchor") for r in modes), modes
result = json.load(open(f"{run}/result.json"))
assert result["outcome"] != "retracted", result["outcome"]
if result["found"]:
    assert sorted(d["name"] for d in result["cause"]) == ["c", "workers"], result["cause"]
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
