#!/usr/bin/env bash
# Messages count in words that agree with their numbers: "1 repo", "1 difference", "1 variable";
# `repro` calls the anchors by their names, not "good with 7 of the differences".
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
git init -q "$T/repo" && git -C "$T/repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
ONLY_ONE=x "$ENVBISECT" capture --python "$PY" --repo "r=$T/repo" -o "$T/now.json" >"$T/capture.txt"
expect_contains "$T/capture.txt" " 1 repo, "
not grep -q "1 repos" "$T/capture.txt"

echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 2}' >"$T/recipe.json"
echo 'import json, os; print(json.dumps({"m": 200.0 if os.environ.get("E0") == "b" else 1000.0}))' >"$T/bench.py"
system_state '"env": {"E0": "a"}' >"$T/good.json"
system_state '"env": {"E0": "b"}' >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --dry-run >"$T/plan.txt"
expect_contains "$T/plan.txt" "isolate the minimal cause among 1 difference:"
not grep -q "1 differences" "$T/plan.txt"

F="$SRC/fixtures/scenarios/flags"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" -o "$T/run" -q >/dev/null
"$ENVBISECT" repro "$T/run" bad >"$T/bad.txt" 2>&1
expect_contains "$T/bad.txt" ": the bad anchor (the good state with all 5 differences, that is the bad state)"
"$ENVBISECT" repro "$T/run" good >"$T/good.txt" 2>&1
expect_contains "$T/good.txt" ": the good anchor (the good state as it is)"
not grep -q "of the differences" "$T/bad.txt"
echo "cli_messages_count_right: ok"
