#!/usr/bin/env bash
# A state's commit naming both a tag and a branch (at different commits) means the tag, as in git,
# and like git envbisect warns, naming the file, the field and both meanings.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
need git git
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/repo"
for i in 1 2 3 4; do
  echo "$i" >"$T/repo/n"
  git_c add -A && git_c commit -qm "c$i"
done
git -C "$T/repo" branch dup HEAD~1
git -C "$T/repo" tag dup HEAD~2
tagged=$(git -C "$T/repo" rev-parse HEAD~2)
[[ "$(git -C "$T/repo" rev-parse dup 2>/dev/null)" == "$tagged" ]]

cat >"$T/bench.py" <<'PY'
import json, os, sys
n = int(open(os.path.join(sys.argv[1], "n")).read())
print(json.dumps({"items_per_s": 1000.0 if n <= 1 else 200.0}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{repo.app}"], "metric": "items_per_s", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"repos\": {\"app\": {\"path\": \"repo\", \"commit\": \"$1\"}}}"
}
state HEAD~3 >"$T/good.json"
state dup >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/err.txt" "warning: $T/bad.json: /repos/app/commit: 'dup' is ambiguous in $T/repo: refs/tags/dup (${tagged:0:12}), refs/heads/dup ("
expect_contains "$T/out.txt" "repos/app $(git -C "$T/repo" rev-parse HEAD~3) -> $tagged"
# Said once, for the bad state only: HEAD~3 has one meaning.
[[ $(grep -c "is ambiguous" "$T/err.txt") -eq 1 ]]
