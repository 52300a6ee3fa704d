#!/usr/bin/env bash
# A repo whose 5th of 8 commits makes the benchmark slow: `envbisect run` isolates the repo delta
# among two others, then bisects the first-parent commit axis and names the first bad commit; the
# plan (--dry-run) shows the axis and worst cases without running anything.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/repo"
for i in 1 2 3 4 5 6 7 8; do
  if [[ $i -ge 5 ]]; then echo slow >"$T/repo/mode"; else echo fast >"$T/repo/mode"; fi
  echo "$i" >"$T/repo/n"
  git_c add -A && GIT_AUTHOR_DATE="2026-11-0${i}T00:00:00Z" GIT_COMMITTER_DATE="2026-11-0${i}T00:00:00Z" git_c commit -qm "c$i"
done
first=$(git -C "$T/repo" rev-list --reverse HEAD | sed -n 1p)  # sed reads it all: no SIGPIPE under pipefail
fifth=$(git -C "$T/repo" rev-list --reverse HEAD | sed -n 5p)
last=$(git -C "$T/repo" rev-parse HEAD)

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
 "repos": {"app": {"path": "repo", "commit": "$1"}}, "env": {"A": "$2"}, "data": {"rows": $3}}
JSON
}
state "$first" old 10 >"$T/good.json"
state "$last" new 20 >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --dry-run >"$T/plan.txt"
expect_contains "$T/plan.txt" "[ordered axis, 6 inner commits: ${first:0:12} <"
expect_contains "$T/plan.txt" "worst case with 1 culprit"
[[ ! -e "$T/runs" ]]

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (1 difference):"
expect_contains "$T/out.txt" "repos/app $first -> $last"
expect_contains "$T/out.txt" "inside repos/app: first bad $fifth"
"$PY" - "$T/run/result.json" "$fifth" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
(refinement,) = result["refinements"]
assert refinement["kind"] == "commits" and refinement["first_bad"] == sys.argv[2], refinement
assert refinement["evaluations"] <= 3, refinement  # ceil(log2(8)) for 7 gaps
PY
# Counters count what they say: the commits decided inside the repo axis are decided candidates too,
# and the benchmark runs are the attempts this session journaled.
"$PY" - "$T/out.txt" "$T/run/journal.jsonl" <<'PY'
import json, re, sys
said = re.search(r"^decided (\d+) candidates? \((\d+) while isolating\), (\d+) benchmark runs? ", open(sys.argv[1]).read(), re.M)
assert said, open(sys.argv[1]).read()
records = [json.loads(l) for l in open(sys.argv[2])]
decisions = [r for r in records if r["type"] == "decision"]
attempts = [r for r in records if r["type"] == "attempt"]
assert int(said[1]) == len(decisions), (said[0], len(decisions))
assert any(d["stage"] == "refine" for d in decisions), [d["stage"] for d in decisions]
assert int(said[3]) == len(attempts), (said[0], len(attempts))
PY
