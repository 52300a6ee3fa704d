#!/usr/bin/env bash
# One-run mode (the anchors looked deterministic) still says when the cause bites: the probes run after
# the boundary re-run, and a probe cell found good runs until it has passed as many runs as the good
# anchor did. The bench fails with E=b from three workers up. In the first run that is all: exit 0,
# the probe grid in the result, each good cell with the good anchor's run count. In the second, two
# workers with a cold cache (a cell only the probes ask) fail every third run: its first run passes,
# and holding it to the anchor's count must show the race and send the run back to statistics.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
cause = os.environ.get("E") == "b"
fail = cause and threads >= 3
if cause and threads == 2 and not warm and os.path.exists(os.path.join(here, "race-on")):
    fail = count_run("race-cold-2") % 3 == 0
PY
state() {
  system_state "\"threads\": {\"workers\": $1}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"$2\"}}, \"env\": {\"E\": \"$3\"}"
}
state 1 warm a >"$T/good.json"
state 4 cold b >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/steady" >"$T/steady.txt" 2>"$T/steady-err.txt" ||
  { echo "expected exit 0"; cat "$T/steady.txt" "$T/steady-err.txt"; exit 1; }
expect_contains "$T/steady.txt" "anchors look deterministic"
expect_contains "$T/steady.txt" "first bad threads count: 3 (last good 2)"
"$PY" - "$T/steady" <<'PY'
import json, sys
run = sys.argv[1]
result = json.load(open(f"{run}/result.json"))
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
assert result["mode"] != "metric", result["mode"]
row = lambda cache: {p["value"]: p["verdict"] for p in result["probes"] if p["cache"] == cache}
assert row("c:warm") == {1: "good", 2: "good", 3: "bad", 4: "bad"}, row("c:warm")
assert row("c:cold") == {2: "good", 3: "bad"}, row("c:cold")
probes = [d for d in journal if d["type"] == "decision" and d["stage"] == "probe"]
runs = {}
for d in probes:
    runs[d["candidate"]] = (d["verdict"], d["runs"])
good_runs = [r for r in journal if r["type"] == "verify"][0]["verify"]["good_runs"]
assert good_runs >= 3, good_runs
for candidate, (verdict, n) in runs.items():
    if verdict == "good":
        assert n >= good_runs, (candidate, n, good_runs)
assert any(v == "good" for v, _ in runs.values()), runs
PY

touch "$T/race-on"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/race" \
  >"$T/race.txt" 2>"$T/race-err.txt" || true
expect_contains "$T/race.txt" "anchors look deterministic"
expect_contains "$T/race.txt" "disagreed: the test is not deterministic after all"
"$PY" - "$T/race/result.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
assert result["mode"] == "metric", result["mode"]
assert not any(p["cache"] == "c:cold" and p["value"] == 2 and p["verdict"] == "good" for p in result["probes"]), result["probes"]
PY
[[ -n "${SHOW:-}" ]] && cat "$T/steady.txt" "$T/race.txt"; true
