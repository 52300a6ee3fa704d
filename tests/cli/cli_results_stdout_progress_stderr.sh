#!/usr/bin/env bash
# Results go to stdout, progress and warnings to stderr: a run whose anchors are noisy warns on
# stderr only, its progress lines are on stderr, and stdout holds the run's own lines.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, random
r = random.Random(os.getpid())
slow = os.environ.get("E3") == "b"
print(json.dumps({"m": (200.0 if slow else 1000.0) * (0.5 + r.random())}))
PY
eight_var_inputs
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" -o "$T/run" --no-probe \
  >"$T/out.txt" 2>"$T/err.txt" || true
expect_contains "$T/err.txt" "envbisect: warning: the good anchor's runs are noisy"
expect_contains "$T/err.txt" " finished in "
if grep -nE "warning|finished in |^envbisect: [0-9]+:[0-9][0-9]" "$T/out.txt"; then
  echo "a warning or a progress line went to stdout"; exit 1
fi
expect_contains "$T/out.txt" "anchors ("
echo "cli_results_stdout_progress_stderr: ok"
