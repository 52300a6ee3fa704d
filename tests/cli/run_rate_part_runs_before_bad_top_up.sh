#!/usr/bin/env bash
# A fresh H100's run of the 1-GPU incident (reports/2026-12-07-gpu-run19), replayed on the CPU: the race
# bites 3 warm threads in runs 4, 9, 12 and 13 of that cell and every run from the 14th, a cold cache
# with 3 threads always, 1 thread never. At 4 failures in 13 the part {workers} is between the rates and
# the bad anchor (5 of 5) looks short, yet the part's next run settles it either way (a failure is
# biting at any bar the bad anchor's runs allow, a pass leaves it undecided at every one): that run comes
# before any bad anchor top-up. On the H100 six bad runs (73 s) came first and changed nothing.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
import time
if threads >= 3 and warm:
    n = count_run("three-warm")
    fail = n in (4, 9, 12, 13) or n >= 14
else:
    fail = threads >= 3
time.sleep(0.4 if threads >= 3 and not warm else 0.15)
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0" --no-probe
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
result = json.load(open(f"{run}/result.json"))
assert [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
attempts = [r for r in journal if r["type"] == "attempt"]
bad = attempts[1]["candidate"]
# The differences are caches/c (0) and threads/workers (1); the part {workers} is good plus the second.
part = next(r["candidate"] for r in attempts if r["applied"] == [1])
order = [a["candidate"] for a in attempts]
part_runs = [i for i, c in enumerate(order) if c == part]
assert len(part_runs) >= 14, len(part_runs)
between = [c for c in order[part_runs[12] + 1:part_runs[13]] if c == bad]
assert not between, f"{len(between)} bad anchor runs between the part's 13th and 14th runs"
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
