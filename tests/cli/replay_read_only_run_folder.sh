#!/usr/bin/env bash
# An archived or shared run folder is read-only to whoever replays it: `replay --journal FILE` writes the
# replay's journal there and leaves the run folder as it was; without it, one message says what to do.
# Runs the replay as user nobody, who owns the folder (a run folder must be the user's own) but
# cannot write it: read-only even to a root CI.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
[[ $(id -u) -eq 0 ]] || skip "needs root to replay as another user"
need runuser util-linux
need /usr/bin/python3 python3
chmod 755 "$T"
R="$T/run"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$R" --no-probe >"$T/run.txt" 2>&1
runuser -u nobody -- test -x "$ENVBISECT" || skip "$ENVBISECT is not executable by nobody"
chown -R nobody "$R" && chmod -R a-w "$R"
(cd "$R" && find . -type f | sort | xargs sha256sum) >"$T/before.txt"
mkdir "$T/elsewhere" && chown nobody "$T/elsewhere"
rc=0
runuser -u nobody -- "$ENVBISECT" replay "$R" >"$T/ro.txt" 2>&1 || rc=$?
[[ $rc -eq 4 ]] || { echo "replay into a read-only folder: expected exit 4, got $rc"; cat "$T/ro.txt"; exit 1; }
expect_contains "$T/ro.txt" "$R: cannot write the replay's journal here (read-only run folder?): give --journal FILE"
runuser -u nobody -- "$ENVBISECT" replay "$R" --journal "$T/elsewhere/replay.jsonl" >"$T/replay.txt" 2>&1 ||
  { echo "replay --journal: expected exit 0"; cat "$T/replay.txt"; exit 1; }
expect_contains "$T/replay.txt" "same cause and verification"
[[ -s "$T/elsewhere/replay.jsonl" ]] || { echo "no replay journal written"; exit 1; }
(cd "$R" && find . -type f | sort | xargs sha256sum) >"$T/after.txt"
cmp "$T/before.txt" "$T/after.txt" || { echo "the run folder changed"; diff "$T/before.txt" "$T/after.txt"; exit 1; }
# Never over the run's own journal.
rc=0
runuser -u nobody -- "$ENVBISECT" replay "$R" --journal "$R/journal.jsonl" >"$T/own.txt" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || { echo "--journal RUNDIR/journal.jsonl: expected exit 2, got $rc"; cat "$T/own.txt"; exit 1; }
expect_contains "$T/own.txt" "is the run's own journal.jsonl"
