#!/usr/bin/env bash
# `matrix --executor slurm` on a real single-node Slurm (munged + slurmctld + slurmd on loopback,
# started and stopped by PID): a night's unmeasured cells are ONE Slurm job array, a task per cell
# running `envbisect matrix ... --cell I` into the cell's folder, and each night says what the local
# executor says (night 1: no history, exit 0; night 2: two new red cells bisected to fauxlib 1.1 -> 1.2,
# exit 1). A rerun submits nothing. A task that fails without writing its measurement names the task,
# its state and its logs (exit 4); the rerun submits only that cell. Bad --cell/--executor: exit 2.
source "$(dirname "$0")/common.sh"
FX="$T/fx"
"$PY" "$SRC/fixtures/matrix/make-fixture" "$FX" >/dev/null

# Bad input (no Slurm needed): one error line naming the option, exit 2, nothing written.
bad() {
  local text="$1" rc=0
  shift
  "$ENVBISECT" matrix "$FX/spec.json" --results "$T/bad" --date 2026-11-01 "$@" 2>"$T/bad.err" || rc=$?
  [[ $rc -eq 2 && $(wc -l <"$T/bad.err") -eq 1 ]] || { echo "matrix $*: exit $rc"; cat "$T/bad.err"; return 1; }
  expect_contains "$T/bad.err" "envbisect: error: $text"
  [[ ! -e "$T/bad" ]]
}
bad "--cell 4: $FX/spec.json has 4 cells (0-3)" --cell 4
bad "--executor: ssh not in {local,slurm}" --executor ssh
bad "--cell 0: a cell is measured here" --cell 0 --executor slurm

# A task whose reading of the spec gives another state than the one the night submitted (its
# state.json) refuses to measure: exit 4, naming the cell and the file (no Slurm needed).
mkdir -p "$T/moved/2026-11-01/cells"
rc=0
"$ENVBISECT" matrix "$FX/spec.json" --results "$T/moved" --date 2026-11-01 --cell 0 >/dev/null 2>"$T/moved.err" || rc=$?
[[ $rc -eq 0 ]]  # the first time, the task measures (no submitted state to compare with)
for dir0 in "$T"/moved/2026-11-01/cells/*/; do :; done
echo '{"format": 1, "name": "another state"}' >"$dir0/state.json"
rm -f "$dir0/cell.json"
rc=0
"$ENVBISECT" matrix "$FX/spec.json" --results "$T/moved" --date 2026-11-01 --cell 0 >/dev/null 2>"$T/moved.err" || rc=$?
[[ $rc -eq 4 ]]
expect_contains "$T/moved.err" "(the state the night submitted) differs from this task's"

need /usr/sbin/slurmctld slurm-wlm
need /usr/sbin/munged munge
eval "$("$SRC/scripts/slurm-local" start "$T/slurm")"
trap 'rc=$?; "$SRC/scripts/slurm-local" stop "$T/slurm"; (exit $rc); _cli_on_exit' EXIT

L="$T/local"
S="$T/on-slurm"
jobs_in_cluster() { scontrol show jobs -o | grep -c '^JobId=' || true; }
# night DATE EXIT [SLURM ARGS...]: the night run locally and on Slurm; same exit, same summary, same
# verdict per cell, and the Slurm night is one array of 4 tasks whose output lies in the cells' folders.
night() {
  local date="$1" want="$2" rc=0 before
  shift 2
  "$ENVBISECT" matrix "$FX/spec.json" --results "$L" --date "$date" >"$T/local-$date.txt" 2>/dev/null || rc=$?
  [[ $rc -eq $want ]]
  before=$(jobs_in_cluster)
  rc=0
  "$ENVBISECT" matrix "$FX/spec.json" --results "$S" --date "$date" --executor slurm "$@" >"$T/slurm-$date.txt" \
    2>"$T/slurm-$date.err" || rc=$?
  [[ $rc -eq $want ]]
  diff <(sed "s|$L/|DIR/|" "$T/local-$date.txt") <(sed "s|$S/|DIR/|" "$T/slurm-$date.txt")
  expect_contains "$T/slurm-$date.err" "measuring 4 cells as one Slurm job array"
  [[ $(jobs_in_cluster) -eq $((before + 4)) ]]
  "$PY" - "$L/$date" "$S/$date" <<'PY'
import json, os, re, subprocess, sys
local, slurm = (json.load(open(os.path.join(d, "matrix.json"))) for d in sys.argv[1:])
keys = ("status", "new_red", "runs", "failed", "skipped", "first_error", "resolved")
view = lambda doc: {c["id"]: ({k: c.get(k) for k in keys}, c.get("bisect", {}).get("cause")) for c in doc["cells"]}
assert view(local) == view(slurm), (view(local), view(slurm))
night = sys.argv[2]
array_id = open(os.path.join(night, "slurm", "submit.txt")).read().strip()
assert re.fullmatch(r"[0-9]+", array_id), array_id
tasks = subprocess.run(["scontrol", "show", "job", "-o", array_id], capture_output=True, text=True, check=True).stdout
ids = sorted(int(t) for t in re.findall(r"ArrayJobId=%s ArrayTaskId=([0-9]+) " % array_id, tasks))
assert ids == [0, 1, 2, 3] and tasks.count("JobState=COMPLETED") == 4, tasks
for cell in slurm["cells"]:
    out = open(os.path.join(night, "cells", cell["id"], "slurm-task.out")).read()
    assert out.startswith("cell %s: 3 runs" % cell["id"]), out
PY
}
night 2026-11-01 0
"$PY" "$SRC/fixtures/matrix/make-fixture" "$FX" --night 2 >/dev/null
night 2026-11-02 1 --jobs 2
# --jobs 2 on Slurm throttles the array: at most 2 tasks at once.
# (scontrol's answer read whole first: `scontrol | grep -q` can die of SIGPIPE under pipefail.)
array_info=$(scontrol show job -o "$(cat "$S/2026-11-02/slurm/submit.txt")")
grep -q 'ArrayTaskThrottle=2' <<<"$array_info"
expect_contains "$T/slurm-2026-11-02.txt" "2 red (2 new)"
expect_contains "$T/slurm-2026-11-02.txt" "(cause: packages/fauxlib 1.1 -> 1.2)"

# A rerun of the night: every cell is reused from its folder, nothing is submitted.
before=$(jobs_in_cluster)
rc=0
"$ENVBISECT" matrix "$FX/spec.json" --results "$S" --date 2026-11-02 --executor slurm >"$T/rerun.txt" 2>"$T/rerun.err" || rc=$?
[[ $rc -eq 1 && $(jobs_in_cluster) -eq $before ]]
diff "$T/slurm-2026-11-02.txt" "$T/rerun.txt"
not grep -q "Slurm job array" "$T/rerun.err"

# One cell's task fails before measuring (its journal is a folder): exit 4, naming task, state, logs.
broken="env.FAUX_MODE=strict,packages.fauxlib=1.0"
mkdir -p "$S/2026-11-03/cells/$broken/journal.jsonl"
rc=0
"$ENVBISECT" matrix "$FX/spec.json" --results "$S" --date 2026-11-03 --executor slurm >/dev/null 2>"$T/fail.err" || rc=$?
[[ $rc -eq 4 ]]
array_id=$(cat "$S/2026-11-03/slurm/submit.txt")
expect_contains "$T/fail.err" "envbisect: error: cell $broken: Slurm array task ${array_id}_3 ended FAILED (exit 2) without writing its measurement; see $S/2026-11-03/cells/$broken/slurm-task.err"
# Task ids are positions: the cell index travels on the task's command line.
grep -q -- ' --cell 3' "$S/2026-11-03/slurm/array.sh"
expect_contains "$S/2026-11-03/cells/$broken/slurm-task.err" "journal.jsonl: not a regular file"
# Repaired, the rerun submits only that cell; the cells still red since night 2 are not new (exit 0).
rmdir "$S/2026-11-03/cells/$broken/journal.jsonl"
rc=0
"$ENVBISECT" matrix "$FX/spec.json" --results "$S" --date 2026-11-03 --executor slurm >"$T/repaired.txt" 2>"$T/repaired.err" || rc=$?
[[ $rc -eq 0 ]]
expect_contains "$T/repaired.err" "measuring 1 cell as one Slurm job array"
# One task, id 0 (a position), measuring cell 3.
grep -q '^  0)' "$S/2026-11-03/slurm/array.sh"
[[ $(grep -c '^  [0-9]*)' "$S/2026-11-03/slurm/array.sh") -eq 1 ]]
grep -q -- ' --cell 3' "$S/2026-11-03/slurm/array.sh"
expect_contains "$T/repaired.txt" "4 cells: 2 green, 2 red (0 new)"
