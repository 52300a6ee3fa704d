#!/usr/bin/env bash
# Every journal record reaches the disk before the run goes on: a real `envbisect run`, traced with
# strace, calls fdatasync on journal.jsonl once per record it appends (a power loss then loses at most
# the record being written, which `resume` cuts as a torn tail).
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need strace strace
R="$T/run"
strace -f -y -qq -e trace=fdatasync -o "$T/trace.txt" \
  "$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$R" --no-probe >"$T/run.txt" 2>&1
records=$(grep -c . "$R/journal.jsonl")
synced=$(grep -cE "fdatasync\([0-9]+<$R/journal\.jsonl>\) += 0" "$T/trace.txt" || true)
# The run decides something: a journal of a start record alone would prove nothing.
[[ $records -ge 10 ]] || { echo "expected a journal of at least 10 records, got $records"; cat "$T/run.txt"; exit 1; }
[[ $synced -eq $records ]] || { echo "journal.jsonl: $records records, $synced fdatasync calls on it"; exit 1; }
