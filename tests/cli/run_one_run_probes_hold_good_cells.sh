#!/usr/bin/env bash
# One-run mode (the anchors looked deterministic) still says when the cause bites: after the cause is
# verified and written, the probes measure failure rates per cell. The bench fails with E=b from
# three workers up. In the first run that is all: exit 0, and a cell is called clean only on as many
# clean runs as the sequential test needs (a race that bites in half the runs passes one run often),
# so the rows show the step at 3. In the second, two workers with a cold cache (a cell only the probes
# ask) fail every third run: that cell must not be called clean, and the probes must neither switch
# the run's mode nor take the verified cause back.
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
expect_contains "$T/steady.txt" "first bad count 3 (last clean 2)"
"$PY" - "$T/steady" <<'PY'
import json, sys
run = sys.argv[1]
result = json.load(open(f"{run}/result.json"))
assert result["mode"] == "pass-fail", result["mode"]
row = lambda cache: {p["value"]: p["call"] for p in result["probes"] if p["cache"] == cache}
for cache in ("c:warm", "c:cold"):
    assert row(cache) == {1: "clean", 2: "clean", 3: "bites", 4: "bites"}, (cache, row(cache))
for p in result["probes"]:
    if p["call"] == "clean":
        assert p["failures"] == 0 and p["runs"] >= 6, p
PY

touch "$T/race-on"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/race" \
  >"$T/race.txt" 2>"$T/race-err.txt" || true
expect_contains "$T/race.txt" "anchors look deterministic"
not grep -q "not deterministic after all" "$T/race.txt"
expect_contains "$T/race.txt" "verified cause after"
"$PY" - "$T/race/result.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
assert result["found"] and result["mode"] == "pass-fail", (result["found"], result["mode"])
cell = [p for p in result["probes"] if p["cache"] == "c:cold" and p["value"] == 2][0]
assert cell["failures"] >= 1 and cell["call"] != "clean", cell
PY
[[ -n "${SHOW:-}" ]] && cat "$T/steady.txt" "$T/race.txt"; true
