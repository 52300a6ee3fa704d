#!/usr/bin/env bash
# One process at a time in a run folder: while a run is going, `resume` and a second `run --out` into
# the same folder are refused at once with exit 4 naming the running pid; so is a second `resume`
# beside a first. Nothing is appended by the refused ones, and the journal still reads whole.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
# Slow attempts (2 s each) keep the first process busy while the others knock.
for s in good bad; do
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["env"]["FLAG_SLEEP"]="2"; json.dump(d,open(sys.argv[2],"w"))' \
    "$F/$s.json" "$T/$s.json"
done
cp "$F/bench.py" "$F/recipe.json" "$T/"
R="$T/run"
# wait_holder PID: until PID holds $R's lock (its pid is in $R/lock) and has journaled, at most 20 s.
wait_holder() {
  for _ in $(seq 200); do
    grep -qs "pid $1 " "$R/lock" && grep -qs '"type":"start"' "$R/journal.jsonl" && return 0
    sleep 0.1
  done
  echo "pid $1 never took $R/lock" >&2
  return 1
}
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$R" >"$T/first.txt" 2>&1 &
first=$!
wait_holder "$first"
lines=$(wc -l <"$R/journal.jsonl")

# Refusals are instant; a second user let in would run for minutes (timeout's 124 fails the test).
rc=0; timeout 20 "$ENVBISECT" resume "$R" >"$T/resume.txt" 2>&1 || rc=$?
[[ $rc -eq 4 ]] || { cat "$T/resume.txt"; echo "resume beside a run: exit $rc, expected 4" >&2; exit 1; }
expect_contains "$T/resume.txt" "in use by pid $first (envbisect run)"
rc=0; timeout 20 "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$R" >"$T/second.txt" 2>&1 || rc=$?
[[ $rc -eq 4 ]] || { cat "$T/second.txt"; echo "second run --out: exit $rc, expected 4" >&2; exit 1; }
expect_contains "$T/second.txt" "in use by pid $first (envbisect run)"
kill -0 "$first"  # still running, undisturbed
[[ $(wc -l <"$R/journal.jsonl") -ge $lines ]]

# Two resumes at once: the second is refused while the first holds the folder.
kill -9 "$first"; wait "$first" 2>/dev/null || true
"$ENVBISECT" resume "$R" >"$T/resume1.txt" 2>&1 &
resumer=$!
wait_holder "$resumer"
rc=0; timeout 20 "$ENVBISECT" resume "$R" >"$T/resume2.txt" 2>&1 || rc=$?
[[ $rc -eq 4 ]] || { cat "$T/resume2.txt"; echo "second resume: exit $rc, expected 4" >&2; exit 1; }
expect_contains "$T/resume2.txt" "in use by pid $resumer (envbisect resume)"
kill -TERM "$resumer"; wait "$resumer" 2>/dev/null || true
# Whatever was written reads back whole: no interleaved or overwritten records.
"$PY" -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.strip()]' "$R/journal.jsonl"
