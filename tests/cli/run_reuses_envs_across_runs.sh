#!/usr/bin/env bash
# Store-built environments are reused across runs by environment hash: a second run on the same
# inputs and store builds nothing (every build record says "reused") and finds the same cause.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/pair"
"$F/make-fixture" >/dev/null
for n in 1 2; do
  "$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" --max-runs 20 \
    --store "$T/store" --no-probe --out "$T/run$n" >"$T/out$n.txt"
  expect_contains "$T/out$n.txt" "cause (2 differences, together):"
done
"$PY" - "$T/run1/journal.jsonl" "$T/run2/journal.jsonl" "$T/store" <<'PY'
import json, sys
first = [json.loads(l) for l in open(sys.argv[1]) if '"type":"build"' in l]
second = [json.loads(l) for l in open(sys.argv[2]) if '"type":"build"' in l]
assert first and not any("reused" in b for b in first), first
assert second and all(b.get("reused", "").startswith(sys.argv[3] + "/envs/") and b["ok"] for b in second), second
PY
