#!/usr/bin/env bash
# One-run mode chosen from the anchors: "bad - cause -> good" is held to the good anchor's run count
# too, not only the refinement's last good. Three workers fail every run; E=b alone fails every third
# run (its first two pass, so the isolation's one-run verdict and its second run said good). Its
# later runs must show the race, and the run fall back to failure rates instead of exit 0 on {workers}.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench <<'PY'
fail = threads >= 3
if os.environ.get("E") == "b" and not fail:
    fail = count_run("runs-e") % 3 == 0
PY
state() {
  system_state "\"threads\": {\"workers\": $1}, \"env\": {\"E\": \"$2\"}"
}
state 1 a >"$T/good.json"
state 3 b >"$T/bad.json"
race_run "0 1"
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "bad minus the causes"
expect_contains "$T/out.txt" "the test is not deterministic after all"
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
assert result["mode"] == "rate", result["mode"]  # failure rates decide after the fallback
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
