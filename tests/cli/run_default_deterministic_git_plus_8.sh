#!/usr/bin/env bash
# Default options (a recipe with a metric, no "outcome", no --deterministic) on a test that is really
# pass/fail: two runs of each anchor pass and fail every time, so envbisect takes the test as
# deterministic for now, asks git bisect's questions with one run each, and the boundary's re-runs
# bring each side of the answer to four runs whose side was set before they ran. That costs git's runs
# plus eight: the four anchor runs, two more of the last good commit, two more of the first bad. Also
# where the first bad commit is the bad anchor itself (its runs are that side's evidence). Then the same
# history with a test that fails in only two runs of three on bad commits: the anchors' first runs
# still look deterministic, a re-run disagrees, the anchors are brought to the preflight's level and
# failure rates decide; the answer is the right commit or none, never another one.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/repo"
for i in $(seq 1 20); do
  echo "$i" >"$T/repo/n"
  git_c add -A && git_c commit -qm "c$i"
done
commit() { git -C "$T/repo" rev-list --reverse HEAD | sed -n "${1}p"; }
first=$(commit 1)
last=$(commit 20)
state() {
  cat <<JSON
{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"}, "repos": {"app": {"path": "repo", "commit": "$1"}}}
JSON
}
state "$first" >"$T/good.json"
state "$last" >"$T/bad.json"

# The test logs which commit it ran on and fails (exit 1) from commit $BAD_FROM on; a passing run prints
# the metric. FLAKY=1: a bad commit passes every third of its runs (counted across all bad runs).
cat >"$T/test.py" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runcount import count_run
n = int(open(os.path.join(sys.argv[1], "n")).read())
open(sys.argv[2], "a").write(f"{n}\n")
if n >= int(sys.argv[3]):
    if sys.argv[4] != "1" or count_run("bad") % 3 != 0:
        sys.exit(1)
print(json.dumps({"ms": 100.0}))
PY

# git bisect run's questions for a culprit at commit $1.
git_questions() {
  cat >"$T/git-test.sh" <<SH
n=\$(cat n); echo "\$n" >>"$T/git.log"
[ "\$n" -ge $1 ] && exit 1
exit 0
SH
  : >"$T/git.log"
  git -C "$T/repo" bisect start "$last" "$first" >/dev/null
  (cd "$T/repo" && git bisect run sh "$T/git-test.sh" >/dev/null)
  git -C "$T/repo" bisect reset >/dev/null 2>&1
}

for bad_from in 13 20; do
  cat >"$T/recipe.json" <<JSON
{"format": 1, "command": ["$PY", "$T/test.py", "{repo.app}", "$T/ours.log", "$bad_from", "0"], "metric": "ms", "direction": "lower"}
JSON
  : >"$T/ours.log"
  rm -rf "$T/run"
  (cd "$T" && "$ENVBISECT" run good.json bad.json --recipe recipe.json --out "$T/run") >"$T/out.txt"
  expect_contains "$T/out.txt" "anchors (2 runs each, interleaved): good passed 2 of 2 runs, bad failed 2 of 2"
  expect_contains "$T/out.txt" "taken as deterministic for now"
  expect_contains "$T/out.txt" "inside repos/app: first bad $(commit "$bad_from")"
  expect_contains "$T/out.txt" "runs failed whose side was set before they ran"
  git_questions "$bad_from"
  "$PY" - "$T/ours.log" "$T/git.log" "$T/run/result.json" "$bad_from" <<'PY'
import json, sys
ours = open(sys.argv[1]).read().split()
git = open(sys.argv[2]).read().split()
result = json.load(open(sys.argv[3]))
bad_from = sys.argv[4]
assert result["outcome"] == "found", result["outcome"]
# Two runs of each anchor, interleaved; then git's questions in git's order; then the re-runs.
assert ours[:4] == ["1", "20", "1", "20"], ours
assert ours[4:4 + len(git)] == git, (ours, git)
assert len(ours) == len(git) + 8, (len(ours), len(git), ours)
last_good = str(int(bad_from) - 1)
# Each side of the answer: four runs whose side was set before they ran (the anchors' two, and the
# boundary's re-runs after its first run; where the first bad is the bad anchor, its own runs).
if bad_from == "20":
    assert ours.count("20") == 4 and ours.count(last_good) == 3, ours
else:
    assert ours.count(last_good) == 3 and ours.count(bad_from) == 3, ours
pooled = result["boundary_rerun"]["pooled"]
assert pooled["reached"] and pooled["good_runs"] == 4 and pooled["bad_runs"] == 4, pooled
PY
done

# Flaky: bad commits pass every third run. The anchors' first runs fail (runs 1 and 2 of bad).
cat >"$T/recipe.json" <<JSON
{"format": 1, "command": ["$PY", "$T/test.py", "{repo.app}", "$T/ours.log", "13", "1"], "metric": "ms", "direction": "lower"}
JSON
: >"$T/ours.log"
rm -rf "$T/run"
code=0
(cd "$T" && "$ENVBISECT" run good.json bad.json --recipe recipe.json --out "$T/run") >"$T/out.txt" || code=$?
expect_contains "$T/out.txt" "taken as deterministic for now"
expect_contains "$T/out.txt" "the anchors are brought to the preflight's level first"
expect_contains "$T/out.txt" "the test is not deterministic after all"
"$PY" - "$T/run/result.json" "$code" "$(commit 13)" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
code = int(sys.argv[2])
assert code in (0, 1), code
if code == 0:
    assert result["refinements"][0]["first_bad"] == sys.argv[3], result["refinements"]
assert result["mode"] != "pass-fail", result["mode"]
PY
