#!/usr/bin/env bash
# Bad inputs to `run` give exit 2, one message naming every problem's file and JSON pointer, and
# write nothing (no run directory).
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/pair"
mkdir -p "$T/wheels"

cat >"$T/good.json" <<'JSON'
{"format": 1, "packages": {"alpha": "1.0"}, "threads": {"n": "3"}, "pakages": {}}
JSON
cat >"$T/bad.json" <<'JSON'
{"format": 1, "packages": {"alpha": "not a version"}}
JSON
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$F/recipe.json" --wheels "$T/wheels" \
  --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; exit 1; }
expect_contains "$T/err.txt" "envbisect: error:"
expect_contains "$T/err.txt" "$T/good.json: /threads/n: expected a non-negative integer"
expect_contains "$T/err.txt" "$T/good.json: /pakages: unknown field 'pakages' (did you mean 'packages'?)"
expect_contains "$T/err.txt" "$T/bad.json: /packages/alpha: invalid PEP 440 version 'not a version'"
[[ ! -e "$T/run" ]] || { echo "run directory was written despite bad input"; exit 1; }

# Malformed JSON names line and column.
printf '{\n  "format": 1,\n  "packages": {"a": }\n}\n' >"$T/broken.json"
rc=0
"$ENVBISECT" diff "$T/broken.json" "$F/bad.json" 2>"$T/err2.txt" || rc=$?
[[ $rc -eq 2 ]]
expect_contains "$T/err2.txt" "$T/broken.json:3:21: malformed JSON"

# A recipe placeholder the states cannot fill, and a missing wheel dir, are found before any run.
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "-c", "pass", "{threads.drafter_threads}"], "metric": "m"}
JSON
rc=0
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$T/recipe.json" --wheels "$T/nowhere" \
  --out "$T/run" 2>"$T/err3.txt" || rc=$?
[[ $rc -eq 2 ]]
expect_contains "$T/err3.txt" "$F/good.json: /threads/drafter_threads: missing; the recipe $T/recipe.json uses {threads.drafter_threads}"
expect_contains "$T/err3.txt" "--wheels $T/nowhere: not a readable directory"
[[ ! -e "$T/run" ]]

# Good equal to bad: nothing to bisect.
rc=0
"$ENVBISECT" run "$F/good.json" "$F/good.json" --recipe "$F/recipe.json" --out "$T/run" 2>"$T/err4.txt" || rc=$?
[[ $rc -eq 2 ]]
expect_contains "$T/err4.txt" "describe the same environment"
[[ ! -e "$T/run" ]]
