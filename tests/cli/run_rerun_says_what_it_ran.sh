#!/usr/bin/env bash
# A pass/fail run whose cause has no ordered axis (an environment variable) re-runs bad minus the
# causes and good plus the cause at the end. The summary names those two, not "the last good and the
# first bad candidate" (there is none). With one difference they are the anchors themselves: the
# terminal, report.md, report.html and report.json say it re-read them, never "verified both ways".
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
state() {  # state A B
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"env\": {\"A\": \"$1\"$2}}"
}
echo '{"format": 1, "command": ["sh", "-c", "test \"$A\" = 0"]}' >"$T/recipe.json"

# Two differences, the cause one of them: verified by isolation; the re-run is of the two named sets.
state 0 ', "B": "0"' >"$T/good2.json"
state 1 ', "B": "1"' >"$T/bad2.json"
"$ENVBISECT" run "$T/good2.json" "$T/bad2.json" --recipe "$T/recipe.json" --deterministic --out "$T/two" >"$T/two.txt" 2>/dev/null
expect_contains "$T/two.txt" "verified: good + cause -> bad; bad - cause -> good"
expect_contains "$T/two.txt" "re-run: bad minus the causes and good plus the cause gave the same answers on a second run"
not grep -q "the last good and the first bad candidate" "$T/two.txt"
not grep -q "nothing new verified" "$T/two.txt"
expect_contains "$T/two/report.md" "**cause found: 1 difference, verified both ways**"

# One difference: the cause is every difference, so both re-runs are the anchors.
state 0 '' >"$T/good1.json"
state 1 '' >"$T/bad1.json"
"$ENVBISECT" run "$T/good1.json" "$T/bad1.json" --recipe "$T/recipe.json" --deterministic --out "$T/one" >"$T/one.txt" 2>/dev/null
expect_contains "$T/one.txt" "not a verification: the cause is every difference"
expect_contains "$T/one.txt" "re-run: bad minus the causes and good plus the cause gave the same answers on a second run (they are the good and the bad anchor: nothing new verified)"
not grep -q "^verified" "$T/one.txt"
for f in report.md report.html report.json; do
  not grep -q "verified both ways" "$T/one/$f"
done
expect_contains "$T/one/report.md" "**cause found: 1 difference, every difference between the anchors (its verification re-read the anchors)**"
expect_contains "$T/one/report.md" "- good + cause -> bad: **the bad anchor itself**, re-read (not a separate check)"
"$PY" -c 'import json, sys; assert json.load(open(sys.argv[1]))["verdict"]["rereads_anchors"] is True' "$T/one/report.json"
