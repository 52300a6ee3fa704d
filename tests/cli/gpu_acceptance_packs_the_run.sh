#!/usr/bin/env bash
# scripts/gpu-acceptance runs the 1-GPU incident as a user would and packs what a report needs. Off the
# GPU machines (no /opt/torch/.venv interpreter, as on every build and CI machine) envbisect stops at the
# good anchor: the script still exits with envbisect's status and packs the log (the version with its
# commit, the command, the exit status) and the run folder's journal.
source "$(dirname "$0")/common.sh"
rc=0
"$SRC/scripts/gpu-acceptance" >"$T/usage.txt" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || { echo "no run number: expected exit 2, got $rc"; cat "$T/usage.txt"; exit 1; }
expect_contains "$T/usage.txt" "usage: scripts/gpu-acceptance N"
rc=0
TMPDIR="$T" "$SRC/scripts/gpu-acceptance" 7 --envbisect "$ENVBISECT" --out "$T/out" >"$T/printed.txt" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || { echo "expected envbisect's exit 2, got $rc"; cat "$T/printed.txt"; exit 1; }
mkdir "$T/unpacked"
tar xzf "$T/out/run7.tar.gz" -C "$T/unpacked"
for f in log.txt journal.jsonl run.json; do
  [[ -s "$T/unpacked/$f" ]] || { echo "run7.tar.gz lacks $f"; ls "$T/unpacked"; exit 1; }
done
expect_contains "$T/unpacked/log.txt" "envbisect 0.1.0 (commit "
expect_contains "$T/unpacked/log.txt" "--recipe recipes/dflash/recipe.json --budget 500s --out $T/run7"
expect_contains "$T/unpacked/log.txt" "== exit 2, wall "
expect_contains "$T/unpacked/log.txt" "the good anchor's environment could not be built"
expect_contains "$T/printed.txt" "== exit 2"
