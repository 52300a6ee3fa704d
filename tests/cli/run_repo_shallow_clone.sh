#!/usr/bin/env bash
# A shallow clone (CI's `git clone --depth N`) lacks the history before its cut-off, and libgit2 (which
# does not read .git/shallow) fails walking towards it: a revision before the cut-off, or a commit range
# whose walk reaches it, is bad input whose message says the repository is shallow and what to do, not
# a bare "object not found" naming a commit the user never wrote.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
need git git
git_c() { git -C "$T/full" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/full"
for i in 1 2 3 4 5 6; do
  echo "$i" >"$T/full/n"
  git_c add -A && GIT_AUTHOR_DATE="2026-11-0${i}T00:00:00Z" GIT_COMMITTER_DATE="2026-11-0${i}T00:00:00Z" git_c commit -qm "c$i"
done
git clone -q --depth 3 "file://$T/full" "$T/repo"
[[ -s "$T/repo/.git/shallow" ]]
fifth=$(git -C "$T/repo" rev-parse HEAD~1)

cat >"$T/bench.py" <<'PY'
import json, os, sys
n = int(open(os.path.join(sys.argv[1], "n")).read())
print(json.dumps({"items_per_s": 1000.0 if n <= 4 else 200.0}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{repo.app}"], "metric": "items_per_s", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"repos\": {\"app\": {\"path\": \"repo\", \"commit\": \"$1\"}}}"
}

# A revision before the cut-off: exit 2 naming the file and the field, saying the clone is shallow.
state HEAD~4 >"$T/good.json"
state main >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run1" 2>"$T/err1.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc" >&2; cat "$T/err1.txt" >&2; exit 1; }
expect_contains "$T/err1.txt" "good.json: /repos/app/commit"
expect_contains "$T/err1.txt" "shallow clone"
expect_contains "$T/err1.txt" "git fetch --unshallow"
[[ ! -e "$T/run1" ]]

# Both ends inside the clone: walking `bad ^good` still reaches the cut-off; exit 2 saying why.
state "$fifth" >"$T/good.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run2" >"$T/out2.txt" 2>"$T/err2.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc" >&2; cat "$T/err2.txt" >&2; exit 1; }
expect_contains "$T/err2.txt" "$T/repo"
expect_contains "$T/err2.txt" "shallow clone"
expect_contains "$T/err2.txt" "git fetch --unshallow"
