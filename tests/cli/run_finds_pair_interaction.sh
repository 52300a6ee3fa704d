#!/usr/bin/env bash
# `envbisect run` on the pair scenario finds the interaction {alpha, beta} (neither alone is bad),
# verifies it both ways, and writes result.json and a journal line per attempt.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/pair"
"$F/make-fixture" >/dev/null

"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" --max-runs 20 \
  --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/alpha 1.0 -> 1.1"
expect_contains "$T/out.txt" "packages/beta 2.0 -> 2.1"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"
not grep -q "gamma 3.0 -> 3.1" <(sed -n '/^cause/,$p' "$T/out.txt")

"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
result = json.load(open(f"{run}/result.json"))
assert result["found"] and result["verified"] == {"forward": True, "reverse": True}, result
assert sorted(c["name"] for c in result["cause"]) == ["alpha", "beta"], result["cause"]
assert result["cause"][0] == {"dimension": "packages", "name": "alpha", "good": "1.0", "bad": "1.1"}
records = [json.loads(line) for line in open(f"{run}/journal.jsonl")]
attempts = [r for r in records if r["type"] == "attempt"]
assert len(attempts) == result["attempts_run"] >= 6, (len(attempts), result["attempts_run"])
for a in attempts:
    assert a["status"] in ("ok", "failed", "timeout", "skip") and a["stdout"].startswith(run), a
builds = [r for r in records if r["type"] == "build"]
assert builds and all(b["ok"] and b["builder"] in ("store", "uv", "pip") for b in builds), builds
assert records[-1]["type"] == "result"
PY
