#!/usr/bin/env bash
# `resume` says at its start, on stderr, which run it continues (its states and recipe) and what of
# it is reused; with -q it says nothing.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, time
time.sleep(0.3)
print(json.dumps({"m": (200.0 if os.environ.get("E3") == "b" else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
eight_var_inputs
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" -o "$T/run" --budget 5s >/dev/null 2>&1 || true
"$ENVBISECT" resume "$T/run" >"$T/out.txt" 2>"$T/err.txt" || true
head -n 1 "$T/err.txt" >"$T/first.txt"
expect_contains "$T/first.txt" "envbisect: resuming $T/run: $T/good.json (good) vs $T/bad.json (bad), recipe $T/recipe.json; 1 session, "
expect_contains "$T/first.txt" "journaled, every finished run reused"
not grep -q "resuming" "$T/out.txt"
"$ENVBISECT" resume "$T/run" -q >/dev/null 2>"$T/quiet.txt" || true
not grep -q "resuming" "$T/quiet.txt"
echo "cli_resume_says_what_it_resumes: ok"
