#!/usr/bin/env bash
# `envbisect report RUNDIR` on a finished flags run writes report.md, report.html and report.json: the
# verdict with its evidence, plots in the HTML, parseable JSON; the same journal gives the same bytes.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

F="$SRC/fixtures/scenarios/flags"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$T/run" > "$T/run.out"
rm -f "$T/run/report.md" "$T/run/report.html" "$T/run/report.json"

# All three formats by default, each path printed.
"$ENVBISECT" report "$T/run" > "$T/report.out"
for f in report.md report.html report.json; do
  [[ -s "$T/run/$f" ]]
  expect_contains "$T/report.out" "$T/run/$f"
done

# The verdict up top, with the decisions that verified it and the reproduction commands.
expect_contains "$T/run/report.md" "**cause found: 2 differences, together, verified both ways**"
expect_contains "$T/run/report.md" "good + cause -> bad: **verified**; decision #"
expect_contains "$T/run/report.md" "envbisect replay $T/run"
expect_contains "$T/run/report.md" "$(sha256sum "$F/good.json" | cut -d' ' -f1)"
expect_contains "$T/run/report.md" '"items_per_s":'
[[ $(grep -c '<svg ' "$T/run/report.html") -ge 3 ]]
"$PY" - "$T/run/report.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["verdict"]["found"] is True, doc["verdict"]
assert sorted(c["name"] for c in doc["verdict"]["cause"]) == ["FLAG_A", "FLAG_B"], doc["verdict"]["cause"]
assert doc["timeline"] and all(d["verdict"] in ("good", "bad", "skip", "unknown") for d in doc["timeline"])
PY

# Deterministic: rendering again gives byte-identical files.
mkdir "$T/first" && cp "$T/run/report."* "$T/first/"
"$ENVBISECT" report "$T/run" > /dev/null
for f in report.md report.html report.json; do cmp "$T/first/$f" "$T/run/$f"; done

# --format picks one; an unknown format is bad input (exit 2).
rm "$T/run/report."*
"$ENVBISECT" report "$T/run" --format html > /dev/null
[[ -s "$T/run/report.html" && ! -e "$T/run/report.md" && ! -e "$T/run/report.json" ]]
RC=0; "$ENVBISECT" report "$T/run" --format pdf > /dev/null 2>&1 || RC=$?
[[ $RC -eq 2 ]]
RC=0; "$ENVBISECT" report "$T/nowhere" > /dev/null 2>&1 || RC=$?
[[ $RC -eq 2 ]]
# --out into another run's folder would replace that run's report with this one's: refused, untouched.
cp -r "$T/run" "$T/other-run"
cp "$T/other-run/report.html" "$T/other-before.html"
RC=0; "$ENVBISECT" report "$T/run" --out "$T/other-run" > /dev/null 2>"$T/err.txt" || RC=$?
[[ $RC -eq 2 ]] || { echo "expected exit 2 for --out into another run, got $RC"; exit 1; }
expect_contains "$T/err.txt" "holds another run"
cmp "$T/other-before.html" "$T/other-run/report.html"
# Its own folder, named by --out, is fine.
"$ENVBISECT" report "$T/run" --out "$T/run" > /dev/null
echo "report_flags_writes_all_formats: ok"
