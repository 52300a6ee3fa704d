#!/usr/bin/env bash
# A history with a merged side branch whose 2nd commit makes the benchmark slow. `envbisect run`
# bisects the whole DAG as git bisect does and names that side-branch commit; with --first-parent it
# names the merge commit that brought it in (the first-parent line never sees the side commit).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
commit() {  # commit MESSAGE MODE DAY
  echo "$2" >"$T/repo/mode"
  echo "$1" >"$T/repo/log-$1"
  git_c add -A && GIT_AUTHOR_DATE="2026-11-$3T00:00:00Z" GIT_COMMITTER_DATE="2026-11-$3T00:00:00Z" git_c commit -qm "$1"
}
git init -q -b main "$T/repo"
commit base fast 01
good=$(git -C "$T/repo" rev-parse HEAD)
commit m1 fast 02
git_c checkout -q -b side
commit s1 fast 03
commit s2 slow 04
side_bad=$(git -C "$T/repo" rev-parse HEAD)
commit s3 slow 05
git_c checkout -q main
commit m2 fast 06
commit m3 fast 07
# The merge takes the side branch's mode (slow).
GIT_AUTHOR_DATE="2026-11-08T00:00:00Z" GIT_COMMITTER_DATE="2026-11-08T00:00:00Z" git_c merge -q --no-ff -X theirs side -m merge
merge=$(git -C "$T/repo" rev-parse HEAD)
[[ $(cat "$T/repo/mode") == slow ]] || { echo "fixture: the merge should be slow" >&2; exit 1; }
commit m4 slow 09
bad=$(git -C "$T/repo" rev-parse HEAD)

cat >"$T/bench.py" <<'PY'
import json, os, random, sys, time
mode = open(os.path.join(sys.argv[1], "mode")).read().strip()
time.sleep(0.02)
rng = random.Random(os.getpid())
print(json.dumps({"items_per_s": (200.0 if mode == "slow" else 1000.0) * (1 + 0.05 * rng.random())}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{repo.app}"], "metric": "items_per_s", "repeats": 3}
JSON
state() {
  cat <<JSON
{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"},
 "repos": {"app": {"path": "repo", "commit": "$1"}}}
JSON
}
state "$good" >"$T/good.json"
state "$bad" >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/dag" --no-probe >"$T/dag.txt"
expect_contains "$T/dag.txt" "inside repos/app: first bad $side_bad"
"$PY" - "$T/dag/result.json" "$side_bad" <<'PY'
import json, sys
(refinement,) = json.load(open(sys.argv[1]))["refinements"]
assert refinement["kind"] == "commits" and refinement["first_bad"] == sys.argv[2], refinement
# 8 commits in the range (7 to ask about): git bisect needs 3 questions here.
assert refinement["evaluations"] <= 3, refinement
PY

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/fp" --no-probe --first-parent >"$T/fp.txt"
expect_contains "$T/fp.txt" "inside repos/app: first bad $merge"
# resume keeps the choice: the run description records it.
"$PY" -c "import json,sys; assert json.load(open(sys.argv[1]))['first_parent'] is True" "$T/fp/run.json"
