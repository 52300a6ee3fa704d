#!/usr/bin/env bash
# Every command that writes a file takes -o/--output; it names a file, a folder only where several
# files are written (run, report of all formats); missing parent folders are created. `report -o u.md`
# writes that file, never a folder of that name.
source "$(dirname "$0")/common.sh"
for cmd in run report state capture timeline; do
  "$ENVBISECT" "$cmd" --help >"$T/help.txt"
  grep -qE -- "-o,--output" "$T/help.txt" || { echo "$cmd has no -o,--output"; cat "$T/help.txt"; exit 1; }
done
F="$SRC/fixtures/scenarios/flags"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" -o "$T/new/runs/one" -q >/dev/null
[[ -s $T/new/runs/one/result.json ]]
# report: one format to a file named by -o (its folders created), the format from the suffix.
"$ENVBISECT" report "$T/new/runs/one" -o "$T/u.md" >"$T/report1.txt"
[[ -f $T/u.md && ! -d $T/u.md ]] || { echo "-o u.md did not write the file u.md"; exit 1; }
expect_contains "$T/u.md" "## Answer"
expect_contains "$T/report1.txt" "report: $T/u.md"
"$ENVBISECT" report "$T/new/runs/one" --format html --output "$T/deep/er/page.html" >/dev/null
[[ -f $T/deep/er/page.html ]]
rc=0
"$ENVBISECT" report "$T/new/runs/one" --format json -o "$T/x.md" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 2 ]]
expect_contains "$T/err.txt" "a .md file, but --format is json"
# All formats: a folder, created.
"$ENVBISECT" report "$T/new/runs/one" -o "$T/all/here" >/dev/null
for f in report.md report.html report.json; do [[ -s $T/all/here/$f ]]; done
# state: the lock's state into a folder that does not exist yet.
printf 'click==8.1.7\n' >"$T/requirements.txt"
"$ENVBISECT" state "$T/requirements.txt" --output "$T/states/sub/good.json" -q
[[ -s $T/states/sub/good.json ]]
# capture: the same, and a parent that cannot be a folder is named in one error.
"$ENVBISECT" capture --python "$PY" -o "$T/caps/now.json" >/dev/null
[[ -s $T/caps/now.json ]]
touch "$T/afile"
rc=0
"$ENVBISECT" capture --python "$PY" -o "$T/afile/now.json" >/dev/null 2>"$T/cap-err.txt" || rc=$?
[[ $rc -ne 0 ]]
expect_contains "$T/cap-err.txt" "$T/afile"
echo "cli_output_option_everywhere: ok"
