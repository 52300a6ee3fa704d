#!/usr/bin/env bash
# A search asked again on statistics (the anchors looked deterministic, then a candidate's runs
# disagreed) re-checks what its answer rests on. "Bad minus the cause" was first called good on one
# run, then held until it had passed as many runs as the good anchor: those runs are its
# re-measurement, and the re-check must not add three more (the 1-GPU incident's run15 spent 31 s
# so). Here two warm workers fail every other run (the disagreement), three fail every run, and any
# count above one fails with a cold cache; one worker, cold or warm, always passes.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
fail = threads >= 3 or (threads >= 2 and not warm)
if threads == 2 and warm:
    fail = count_run("warm-2") % 2 == 0
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 0 ]] || { echo "expected exit 0, got $rc"; cat "$T/out.txt" "$T/err.txt"; exit 1; }
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "the test is not deterministic after all"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
result = json.load(open(f"{run}/result.json"))
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
assert [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
rest = [d for d in journal if d["type"] == "decision" and d["label"] == "bad minus the causes"]
assert rest, "no decision on bad minus the causes"
candidate = rest[0]["candidate"]
decisions = [d for d in journal if d["type"] == "decision" and d["candidate"] == candidate]
anchor_runs = next(r["anchor_runs"] for r in journal if r["type"] == "preflight")
first = decisions[0]["runs"]
held = rest[0]["runs"]
assert first < held and held >= anchor_runs, (first, held, anchor_runs)
# Every later decision on it, the re-check of the search asked again included, rests on those runs.
later = [d for d in decisions if d["n"] > rest[0]["n"]]
assert any(d["stage"] == "recheck" for d in later), [(d["stage"], d["runs"]) for d in decisions]
for d in later:
    assert d["runs"] == held and d["verdict"] == "good", (d["stage"], d["runs"], held)
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
