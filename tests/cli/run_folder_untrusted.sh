#!/usr/bin/env bash
# A run folder is input. A journal.jsonl or processes.jsonl replaced by a link to another file, a
# dangling journal link in a new --out folder, a RUN/repro link to another folder: each is refused with
# exit 2 naming it, and the file or folder behind the link is untouched (once, resume emptied it as a
# "torn tail"). A folder others may write, or a file of another user, is refused by resume, replay,
# report and repro alike.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
R="$T/run"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$R" --no-probe -q >"$T/run.txt" 2>&1
printf 'precious\nnot a journal\n' >"$T/victim"
cp "$T/victim" "$T/victim.orig"
# expect_refused NAME CMD...: exit 2, one line naming NAME; the victim unchanged.
expect_refused() {
  local name="$1"; shift
  local rc=0
  "$@" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
  [[ $rc -eq 2 ]] || { cat "$T/out.txt" "$T/err.txt"; echo "$*: exit $rc, expected 2" >&2; return 1; }
  expect_contains "$T/err.txt" "$name"
  [[ $(grep -c 'envbisect: error:' "$T/err.txt") -eq 1 ]]
  cmp "$T/victim" "$T/victim.orig"
}

# journal.jsonl as a link to a file that is not a journal: never truncated, never appended to.
mv "$R/journal.jsonl" "$T/journal.jsonl"
ln -s "$T/victim" "$R/journal.jsonl"
expect_refused "$R/journal.jsonl: is a symbolic link" "$ENVBISECT" resume "$R"
expect_refused "$R/journal.jsonl: is a symbolic link" "$ENVBISECT" replay "$R"
expect_refused "$R/journal.jsonl: is a symbolic link" "$ENVBISECT" report "$R"
rm "$R/journal.jsonl"; mv "$T/journal.jsonl" "$R/journal.jsonl"

# processes.jsonl as a link: resume never appends through it.
[[ -f "$R/processes.jsonl" ]]
mv "$R/processes.jsonl" "$T/processes.jsonl"
ln -s "$T/victim" "$R/processes.jsonl"
expect_refused "$R/processes.jsonl: is a symbolic link" "$ENVBISECT" resume "$R"
rm "$R/processes.jsonl"; mv "$T/processes.jsonl" "$R/processes.jsonl"

# A new run into a folder holding a dangling journal link: the link's target is never created.
mkdir "$T/new"
ln -s "$T/outside/journal-target" "$T/new/journal.jsonl"
mkdir "$T/outside"
expect_refused "$T/new/journal.jsonl: is a symbolic link" \
  "$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$T/new" --no-probe -q
[[ ! -e "$T/outside/journal-target" ]]

# RUN/repro as a link to another folder: its journal.jsonl is not deleted, no attempts tree appears.
mkdir "$T/elsewhere"
cp "$T/victim" "$T/elsewhere/journal.jsonl"
ln -s "$T/elsewhere" "$R/repro"
expect_refused "$R/repro: is a symbolic link" "$ENVBISECT" repro "$R" good
cmp "$T/elsewhere/journal.jsonl" "$T/victim"
[[ ! -e "$T/elsewhere/attempts" ]]
rm "$R/repro"

# A folder envbisect writes below (build logs) as a link elsewhere: refused before anything is written.
mv "$R/logs" "$T/logs" 2>/dev/null || mkdir "$T/logs"
ln -s "$T/elsewhere" "$R/logs"
expect_refused "$R/logs: is a symbolic link" "$ENVBISECT" resume "$R"
rm "$R/logs"; [[ ! -d "$T/logs" ]] || mv "$T/logs" "$R/logs"

# Ownership and mode: a folder others may write, a file of another user.
chmod o+w "$R"
for cmd in resume replay report; do
  expect_refused "$R: writable by every user" "$ENVBISECT" "$cmd" "$R"
done
expect_refused "$R: writable by every user" "$ENVBISECT" repro "$R" good
chmod o-w "$R"
if [[ $(id -u) -eq 0 ]]; then
  chown 65534 "$R/run.json"
  expect_refused "$R/run.json: owned by uid 65534, not by the invoking user" "$ENVBISECT" resume "$R"
  expect_refused "$R/run.json: owned by uid 65534" "$ENVBISECT" report "$R"
  chown 0 "$R/run.json"
fi
# The folder as it was works again.
"$ENVBISECT" report "$R" >/dev/null
