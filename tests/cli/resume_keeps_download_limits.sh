#!/usr/bin/env bash
# run.json keeps the index limits a run was given (--index-timeout, --download-timeout,
# --max-download-gib) and `resume` reads them back: the resumed session's start record carries the
# run's values, not the defaults. A run.json written before they were kept resumes with the defaults.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
# limits RUNDIR: the index limits of each start record, one line per session.
limits() { "$PY" -c "
import json
for line in open('$1/journal.jsonl'):
    r = json.loads(line)
    if r['type'] == 'start':
        run = r['run']
        print(run.get('index_timeout_s'), run.get('download_timeout_s'), run.get('max_download_gib'))"; }
# A run stopped by its budget before it is done, so that resume has work left.
stopped_run() {
  local rc=0
  "$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$1" --no-probe -q --budget 1s \
    "${@:2}" >"$T/out.txt" 2>&1 || rc=$?
  [[ $rc -eq 1 ]] || { cat "$T/out.txt"; echo "run: exit $rc, expected 1 (stopped at the budget)"; exit 1; }
}

stopped_run "$T/a" --index-timeout 17 --download-timeout 99 --max-download-gib 3
"$PY" -c "import json; d=json.load(open('$T/a/run.json')); assert (d['index_timeout_s'], d['download_timeout_s'], d['max_download_gib']) == (17, 99, 3), d"
"$ENVBISECT" resume "$T/a" -q >"$T/out.txt" 2>&1 || { cat "$T/out.txt"; exit 1; }
limits "$T/a" >"$T/a.txt"
[[ $(cat "$T/a.txt") == $'17 99 3\n17 99 3' ]] || { cat "$T/a.txt"; echo "resume did not keep the run's limits"; exit 1; }

# An older run.json, without the limits: the defaults.
stopped_run "$T/b"
"$PY" -c "
import json
d = json.load(open('$T/b/run.json'))
for key in ('index_timeout_s', 'download_timeout_s', 'max_download_gib'):
    del d[key]
json.dump(d, open('$T/b/run.json', 'w'))"
"$ENVBISECT" resume "$T/b" -q >"$T/out.txt" 2>&1 || { cat "$T/out.txt"; exit 1; }
[[ $(limits "$T/b" | tail -n 1) == "60 3600 8" ]] || { limits "$T/b"; echo "an older run.json did not resume with the defaults"; exit 1; }
# A hand-edited value out of range is refused, naming the field.
"$PY" -c "
import json
d = json.load(open('$T/a/run.json')); d['download_timeout_s'] = 0; json.dump(d, open('$T/a/run.json', 'w'))"
rc=0
"$ENVBISECT" resume "$T/a" >"$T/out.txt" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || { cat "$T/out.txt"; echo "resume of a bad download_timeout_s: exit $rc, expected 2"; exit 1; }
expect_contains "$T/out.txt" "run.json: /download_timeout_s: expected an integer from 1 to 604800"
