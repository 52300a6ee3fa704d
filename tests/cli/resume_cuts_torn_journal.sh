#!/usr/bin/env bash
# A journal whose end was torn by a crash (a partial line, a garbage line, NUL bytes, a last record
# without its newline) is cut back to its last whole record by `resume`, which says so on stderr; the
# resumed run then finishes and `replay` and `report` work. Garbage before a whole record is damage:
# `resume` refuses it with exit 2 naming the line, and leaves the file as it was.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
R="$T/run"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$R" --no-probe >"$T/run.txt" 2>&1
cp "$R/journal.jsonl" "$T/whole.jsonl"

# A crash mid-write: twelve whole records, then a garbage line, NULs and half a record.
head -n 12 "$T/whole.jsonl" >"$R/journal.jsonl"
{ printf 'not a record\n'; head -c 3000 /dev/zero; printf '\n'; head -c 100 /dev/zero; printf '{"type":"attem'; } >>"$R/journal.jsonl"
"$ENVBISECT" resume "$R" >"$T/resume.txt" 2>"$T/resume.err"
expect_contains "$T/resume.err" "from line 13 on are not whole records"
expect_contains "$T/resume.err" "cut them, resuming after record 12"
head -n 12 "$T/whole.jsonl" | cmp - <(head -n 12 "$R/journal.jsonl")
"$ENVBISECT" replay "$R" >"$T/replay.txt"
expect_contains "$T/replay.txt" "same cause and verification"
"$ENVBISECT" report "$R" >"$T/report.txt"

# A record that parses but lacks its newline is unfinished too (the writer died before its end): cut,
# not taken, so the resumed run's next record does not run on into it.
printf "%s" "$(head -n 13 "$T/whole.jsonl")" >"$R/journal.jsonl"  # the 13th line without its newline
"$ENVBISECT" resume "$R" >"$T/unended.txt" 2>"$T/unended.err"
expect_contains "$T/unended.err" "from line 13 on are not whole records"
expect_contains "$T/unended.err" "cut them, resuming after record 12"
"$ENVBISECT" replay "$R" >"$T/replay-unended.txt"
expect_contains "$T/replay-unended.txt" "same cause and verification"

# Damage in the middle: refused, the journal untouched.
{ head -n 5 "$T/whole.jsonl"; printf '\0\0garbage\n'; tail -n +6 "$T/whole.jsonl"; } >"$R/journal.jsonl"
cp "$R/journal.jsonl" "$T/damaged.jsonl"
rc=0; "$ENVBISECT" resume "$R" >"$T/damaged.txt" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || { cat "$T/damaged.txt"; echo "damaged journal: exit $rc, expected 2" >&2; exit 1; }
expect_contains "$T/damaged.txt" "journal.jsonl:6: malformed journal record"
cmp "$R/journal.jsonl" "$T/damaged.jsonl"
