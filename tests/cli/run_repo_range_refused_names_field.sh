#!/usr/bin/env bash
# A commit range that cannot be bisected (good and bad swapped, unrelated histories) is bad input:
# exit 2, one message naming both state files, the field and the revisions as the states wrote them,
# and no run folder.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
need git git
git_c() { git -C "$1" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "${@:2}"; }
git init -q -b main "$T/repo"
for i in 1 2 3; do
  echo "$i" >"$T/repo/n"
  git_c "$T/repo" add -A && git_c "$T/repo" commit -qm "c$i"
done
git init -q -b other "$T/other"
echo x >"$T/other/n"
git_c "$T/other" add -A && git_c "$T/other" commit -qm unrelated
git -C "$T/repo" fetch -q "$T/other" other:other

cat >"$T/bench.py" <<'PY'
import json
print(json.dumps({"items_per_s": 1000.0}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{repo.app}"], "metric": "items_per_s", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"repos\": {\"app\": {\"path\": \"repo\", \"commit\": \"$1\"}}}"
}
refused() {  # GOOD BAD TEXT: exit 2 naming the files, the field, both revisions and TEXT; no run folder
  state "$1" >"$T/good.json"
  state "$2" >"$T/bad.json"
  local rc=0
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" 2>"$T/err.txt" || rc=$?
  [[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc" >&2; cat "$T/err.txt" >&2; return 1; }
  expect_contains "$T/err.txt" "$T/good.json and $T/bad.json: /repos/app/commit: good '$1' ("
  expect_contains "$T/err.txt" "bad '$2' ("
  expect_contains "$T/err.txt" "$3"
  [[ $(grep -c "error" "$T/err.txt") -eq 1 ]]
  [[ ! -e "$T/run" ]]
}
refused HEAD HEAD~2 "is an ancestor of good"
refused HEAD~1 other "share no history"
