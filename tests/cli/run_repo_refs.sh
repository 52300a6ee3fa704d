#!/usr/bin/env bash
# States name their repo's commit by tag and revision (`v1.0`, `HEAD~1`): `envbisect run` resolves
# them once, names the repo delta with the resolved ids (the refs beside them in the journal), and
# each candidate's {repo.app} is a git working tree where `git describe --tags` works. Refs that
# resolve to one commit are no difference; a ref the repository lacks is bad input naming the field.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
need git git
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/repo"
for i in 1 2 3 4; do
  echo "$i" >"$T/repo/n"
  git_c add -A && GIT_AUTHOR_DATE="2026-11-0${i}T00:00:00Z" GIT_COMMITTER_DATE="2026-11-0${i}T00:00:00Z" git_c commit -qm "c$i"
  if [[ $i -eq 1 ]]; then git_c tag -a v1.0 -m "release 1.0"; fi
  if [[ $i -eq 3 ]]; then git_c tag -a v2.0 -m "release 2.0"; fi
done
first=$(git -C "$T/repo" rev-parse 'v1.0^{commit}')
third=$(git -C "$T/repo" rev-parse HEAD~1)

# The metric is set by what `git describe` says inside the checkout: 1.0 fast, 2.0 slow.
cat >"$T/bench.py" <<'PY'
import json, subprocess, sys
described = subprocess.run(["git", "-C", sys.argv[1], "describe", "--tags", "--dirty"], check=True,
                           capture_output=True, text=True).stdout.strip()
print("described:", described, file=sys.stderr)
print(json.dumps({"items_per_s": 1000.0 if described.startswith("v1.0") else 200.0}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{repo.app}"], "metric": "items_per_s", "repeats": 3}
JSON
state() {
  cat <<JSON
{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"},
 "repos": {"app": {"path": "repo", "commit": "$1"}}, "env": {"A": "$2"}}
JSON
}
state v1.0 old >"$T/good.json"
state HEAD~1 new >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (1 difference):"
expect_contains "$T/out.txt" "repos/app $first -> $third"
expect_contains "$T/out.txt" "inside repos/app: first bad $third"
"$PY" - "$T/run" "$first" "$third" <<'PY'
import json, sys
run, first, third = sys.argv[1:]
start = json.loads(open(run + "/journal.jsonl").readline())
assert start["type"] == "start", start
(delta,) = [d for d in start["deltas"] if d["dimension"] == "repos"]
assert delta == {"dimension": "repos", "name": "app", "good": first, "bad": third,
                 "good_ref": "v1.0", "bad_ref": "HEAD~1"}, delta
result = json.load(open(run + "/result.json"))
assert any(c.get("dimension") == "repos" and c.get("good") == first and c.get("bad") == third
           for c in result["cause"]), result["cause"]
PY
# The benchmark really ran git inside its checkout: describe named the tags (v1.0-1-g... for the
# commit between the ends, bisected on the commit axis).
grep -rqs "described: v1.0" "$T/run"
grep -rqs "described: v2.0" "$T/run"
grep -rqs "described: v1.0-1-g" "$T/run"
ls "$T/run/repos/"*/.git >/dev/null
# The report shows the refs beside the ids.
"$ENVBISECT" report "$T/run" >/dev/null
expect_contains "$T/run/report.md" "v1.0 (${first:0:12})"

# Under --isolation bwrap the checkout is mounted read-only and nothing outside it: git still works
# there, since the clone is self-contained.
if command -v bwrap >/dev/null && bwrap --ro-bind / / true 2>/dev/null; then
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run_bwrap" --isolation bwrap \
    >"$T/out_bwrap.txt" 2>"$T/log_bwrap.txt"
  expect_contains "$T/out_bwrap.txt" "inside repos/app: first bad $third"
  grep -rqs "described: v1.0-1-g" "$T/run_bwrap"
fi

# A tag and a branch expression naming one commit are no difference (with the env kept equal).
state v2.0 same >"$T/good2.json"
state main~1 same >"$T/bad2.json"
not "$ENVBISECT" run "$T/good2.json" "$T/bad2.json" --recipe "$T/recipe.json" --out "$T/run2" 2>"$T/same.txt"
expect_contains "$T/same.txt" "describe the same environment"
"$ENVBISECT" diff "$T/good2.json" "$T/bad2.json" >"$T/diff_same.txt"
expect_contains "$T/diff_same.txt" "The states are identical"
# `diff` shows a ref with the id it resolved to.
"$ENVBISECT" diff "$T/good.json" "$T/bad.json" >"$T/diff.txt"
expect_contains "$T/diff.txt" "v1.0 (${first:0:12})  ->  HEAD~1 (${third:0:12})"

# A ref the repository lacks: exit 2 naming the file, the field and the repository; nothing written.
state v9.9 new >"$T/bad3.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad3.json" --recipe "$T/recipe.json" --out "$T/run3" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc" >&2; cat "$T/err.txt" >&2; exit 1; }
expect_contains "$T/err.txt" "bad3.json: /repos/app/commit"
expect_contains "$T/err.txt" "'v9.9'"
expect_contains "$T/err.txt" "$T/repo"
[[ ! -e "$T/run3" ]]
