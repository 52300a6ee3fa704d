#!/usr/bin/env bash
# A search asked again on statistics (the anchors looked deterministic, then a candidate's runs
# disagreed) re-checks what its answer rests on. The verification stops at the check that disagreed;
# "bad minus the cause" is then decided on failure rates once, and the re-check must not add three
# more runs to it (the 1-GPU incident's run15 spent 31 s so). Here two warm workers fail every other
# run (the disagreement), three fail every run, and any count above one fails with a cold cache; one
# worker, cold or warm, always passes.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
fail = threads >= 3 or (threads >= 2 and not warm)
if threads == 2 and warm:
    fail = count_run("warm-2") % 2 == 0
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0" --no-probe
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "the test is not deterministic after all"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
result = json.load(open(f"{run}/result.json"))
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
assert [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
# The verification stopped at the check that disagreed: the answer it checked no longer held, and the
# checks after it would have held "bad minus the causes" to the good anchor's count for nothing.
verify = next(r["verify"] for r in journal if r["type"] == "verify")
last = verify["checks"][-1]
assert not verify["ok"] and last["verdict"] != last["expected"], verify
# "Bad minus the causes" ({caches/c}) is decided on failure rates once, and every later decision on
# it, the re-check of the search asked again included, rests on those runs: none adds three more.
rest = next(d["candidate"] for d in journal if d["type"] == "decision" and d["label"] == "{caches/c}")
mode_at = next(i for i, r in enumerate(journal) if r["type"] == "mode" and r["mode"] == "rate")
decisions = [d for d in journal[mode_at:] if d["type"] == "decision" and d["candidate"] == rest]
assert decisions and decisions[0]["runs"] >= 5, [(d["stage"], d["runs"]) for d in decisions]
assert any(d["stage"] == "recheck" for d in decisions), [(d["stage"], d["runs"]) for d in decisions]
for d in decisions:
    assert d["runs"] == decisions[0]["runs"] and d["verdict"] == "good", (d["stage"], d["runs"])
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
