#!/usr/bin/env bash
# run.json holds the options `resume` and `replay` read back. A hand-edited field of another type or out
# of the option's range (anchor runs -5, slots "x", an unknown probe mode) is exit 2 naming the file
# and the field, before anything runs; the journal is left as it was and the original run.json resumes.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
R="$T/run"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$R" --no-probe --budget 1s \
  >"$T/run.txt" 2>&1 || true
cp "$R/run.json" "$T/run.json.orig"
cp "$R/journal.jsonl" "$T/journal.orig"
edit() {  # edit PYTHON-STATEMENT EXPECTED: change run.json (as `d`), resume, expect exit 2 and the message
  "$PY" - "$R/run.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
  local rc=0
  "$ENVBISECT" resume "$R" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
  [[ $rc -eq 2 ]] || { echo "$1: expected exit 2, got $rc"; cat "$T/err.txt"; exit 1; }
  expect_contains "$T/err.txt" "$R/run.json: $2"
  [[ $(wc -l <"$T/err.txt") -eq 1 ]] || { echo "$1: expected one line"; cat "$T/err.txt"; exit 1; }
  cmp "$R/journal.jsonl" "$T/journal.orig"
  cp "$T/run.json.orig" "$R/run.json"
}
edit 'd["anchor_runs"] = -5' "/anchor_runs: expected an integer from 1 to 100, got -5"
edit 'd["execution"]["slots"] = "x"' '/execution/slots: expected an integer from 1 to 256, got "x"'
edit 'd["probe"] = "some"' "/probe: expected one of boundary, full, got 'some'"
edit 'd["no_probe"] = "yes"' '/no_probe: expected true or false, got "yes"'
edit 'd["wheels"] = "dir"' '/wheels: expected an array of strings, got "dir"'
edit 'd["execution"] = []' "/execution: expected an object, got []"
# The run.json the run wrote resumes.
rc=0
"$ENVBISECT" resume "$R" >"$T/resume.txt" 2>&1 || rc=$?
[[ $rc -eq 0 ]] || { echo "resume of the original run.json: expected exit 0, got $rc"; cat "$T/resume.txt"; exit 1; }
