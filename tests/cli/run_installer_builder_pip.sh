#!/usr/bin/env bash
# `--builder installer` makes each candidate with the installer (uv when on PATH, here pip: venv
# --without-pip + pip --no-index from the wheel folder) and finds the same interaction as the store;
# --index-url without it is refused before anything is written.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/pair"
"$F/make-fixture" >/dev/null
rc=0
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" --max-runs 20 \
  --index-url http://127.0.0.1:9/simple --out "$T/refused" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 2 ]]
expect_contains "$T/err.txt" "--index-url needs --builder installer"
[[ ! -e "$T/refused" ]]

"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --wheels "$F/.build/wheels" --max-runs 20 \
  --builder installer --no-probe --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/alpha 1.0 -> 1.1"
expect_contains "$T/out.txt" "packages/beta 2.0 -> 2.1"
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, shutil, sys
builds = [json.loads(l) for l in open(sys.argv[1]) if '"type":"build"' in l]
want = "uv" if shutil.which("uv") else "pip"
assert builds and all(b["ok"] and b["builder"] == want for b in builds), builds
PY
