#!/usr/bin/env bash
# A pass/fail test (--deterministic) over a linear history of 20 commits whose 13th breaks it:
# envbisect asks exactly the commits `git bisect run` asks, in the same order, and makes only four
# runs more (one of each anchor, one more of the last good and of the first bad commit).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/repo"
for i in $(seq 1 20); do
  if [[ $i -ge 13 ]]; then echo bad >"$T/repo/mode"; else echo good >"$T/repo/mode"; fi
  echo "$i" >"$T/repo/n"
  git_c add -A && git_c commit -qm "c$i"
done
first=$(git -C "$T/repo" rev-list --reverse HEAD | sed -n 1p)
last=$(git -C "$T/repo" rev-parse HEAD)

# The test logs which commit it ran on, then fails on a bad one (exit 1), as a git bisect run script.
cat >"$T/test.sh" <<'SH'
cat "$1/n" >>"$2"
grep -q '^bad$' "$1/mode" && exit 1
exit 0
SH
cat >"$T/recipe.json" <<JSON
{"format": 1, "command": ["sh", "$T/test.sh", "{repo.app}", "$T/ours.log"], "outcome": "pass-fail"}
JSON
state() {
  cat <<JSON
{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"}, "repos": {"app": {"path": "repo", "commit": "$1"}}}
JSON
}
state "$first" >"$T/good.json"
state "$last" >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --dry-run >"$T/plan.txt"
expect_contains "$T/plan.txt" "each candidate: exactly 1 run"
: >"$T/ours.log"
(cd "$T" && "$ENVBISECT" run good.json bad.json --recipe recipe.json --out "$T/run") >"$T/out.txt"
expect_contains "$T/out.txt" "inside repos/app: first bad $(git -C "$T/repo" rev-list --reverse HEAD | sed -n 13p)"
expect_contains "$T/out.txt" "verify: one more run of each boundary candidate"

# The same question to git bisect run.
cat >"$T/git-test.sh" <<SH
cat n >>"$T/git.log"
grep -q '^bad\$' mode && exit 1
exit 0
SH
: >"$T/git.log"
git -C "$T/repo" bisect start "$last" "$first" >/dev/null
(cd "$T/repo" && git bisect run sh "$T/git-test.sh" >/dev/null)
git -C "$T/repo" bisect reset >/dev/null 2>&1

"$PY" - "$T/ours.log" "$T/git.log" "$T/run/result.json" <<'PY'
import json, sys
ours = open(sys.argv[1]).read().split()
git = open(sys.argv[2]).read().split()
result = json.load(open(sys.argv[3]))
assert result["outcome"] == "found" and result["mode"] == "pass-fail", result["outcome"]
# Anchors first (good 1, bad 20), then the questions, then the two boundary re-runs (12, 13).
assert ours[:2] == ["1", "20"], ours
assert ours[2:-2] == git, (ours, git)
assert sorted(ours[-2:]) == ["12", "13"], ours
assert len(ours) == len(git) + 4, (len(ours), len(git))
PY
