#!/usr/bin/env bash
# Folders below a run folder are input too. A benchmark that moves its candidate's attempts folder
# out and leaves a link in its place gets the candidate's next attempt refused (exit 2 naming the
# link): nothing is written into, or removed from, the folder behind the link. Once such a link is
# there, resume, replay, report and repro refuse the run folder before reading it.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
R="$T/run"
# The flags benchmark, whose second run swaps attempts/CANDIDATE for a link to $T/outside.
cat >"$T/bench.py" <<PY
import os, sys
sys.path.insert(0, "$T")
from runcount import count_run
if count_run("bench") == 2:
    parent = os.path.dirname(os.getcwd())
    os.rename(parent, "$T/outside")
    os.symlink("$T/outside", parent)
    open("$T/linked", "w").write(parent)
exec(open("$F/bench.py").read())
PY
"$PY" -c "import json; r=json.load(open('$F/recipe.json')); r['command'][1]='$T/bench.py'; json.dump(r, open('$T/recipe.json','w'))"
rc=0
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$T/recipe.json" --out "$R" --no-probe -q \
  >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 2 ]] || { cat "$T/out.txt" "$T/err.txt"; echo "run: exit $rc, expected 2"; exit 1; }
link=$(cat "$T/linked")
expect_contains "$T/err.txt" "$link: is a symbolic link"
# Behind the link: the attempt folders that were moved, each with its own logs, and nothing else.
find "$T/outside" -mindepth 1 -maxdepth 1 | sort >"$T/outside.txt"
[[ $(wc -l <"$T/outside.txt") -ge 1 && $(wc -l <"$T/outside.txt") -le 2 ]] || { cat "$T/outside.txt"; exit 1; }
while read -r attempt; do [[ -s "$attempt/stdout.txt" ]] || { echo "$attempt: no log"; exit 1; }; done <"$T/outside.txt"
ls -R "$T/outside" >"$T/before.txt"

# refused CMD...: exit 2, one error line naming the link; the folder behind it unchanged.
refused() {
  local rc=0
  "$@" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
  [[ $rc -eq 2 ]] || { cat "$T/out.txt" "$T/err.txt"; echo "$*: exit $rc, expected 2"; return 1; }
  expect_contains "$T/err.txt" "${link#"$R"}: is a symbolic link"
  [[ $(grep -c 'envbisect: error:' "$T/err.txt") -eq 1 ]]
  ls -R "$T/outside" | cmp - "$T/before.txt"
}
refused "$ENVBISECT" resume "$R"
refused "$ENVBISECT" replay "$R"
refused "$ENVBISECT" report "$R"
refused "$ENVBISECT" repro "$R" good
# One level down: an attempt's own folder as a link.
rm "$link" && mkdir -p "$link/0"
ln -s "$T/outside" "$link/1"
link="$link/1"
refused "$ENVBISECT" report "$R"
refused "$ENVBISECT" resume "$R"
