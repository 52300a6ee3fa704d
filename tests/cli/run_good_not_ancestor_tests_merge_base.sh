#!/usr/bin/env bash
# Good on a release branch that bad never merged (good is not an ancestor of bad). git bisect tests the
# merge base first, then bisects `bad ^good`; envbisect asks the same commits and names the same first
# bad (it once left the repo a toggle and printed no commit at all). When the merge base is already
# bad, the change was fixed on good's branch, not introduced: both say so, and envbisect exits 1
# naming no first bad commit.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
n=0
commit() {  # commit REPO MESSAGE [MODE]
  n=$((n + 1))
  [[ -n "${3:-}" ]] && echo "$3" >"$1/mode"
  echo "$2" >"$1/f-$2"
  git -C "$1" add -A
  GIT_COMMITTER_DATE="@$((1767225600 + n * 3600)) +0000" GIT_AUTHOR_DATE="@$((1767225600 + n * 3600)) +0000" \
    git -C "$1" -c user.name=t -c user.email=t@e -c commit.gpgsign=false commit -qm "$2"
}
# The test both tools run: log the commit, fail where mode says slow.
cat >"$T/test.sh" <<'SH'
git -C "$1" log -1 --format=%s >>"$2"
grep -q slow "$1/mode" && exit 1
exit 0
SH
run_both() {  # run_both NAME GOOD_BRANCH: envbisect and git bisect run over REPO rel..main
  local repo="$T/$1" name="$1"
  for s in good bad; do
    local c; c=$(git -C "$repo" rev-parse "$([[ $s == good ]] && echo rel || echo main)")
    echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"repos\": {\"r\": {\"path\": \"$repo\", \"commit\": \"$c\"}}}" >"$T/$name-$s.json"
  done
  echo "{\"format\": 1, \"command\": [\"sh\", \"$T/test.sh\", \"{repo.r}\", \"$T/$name-ours.log\"]}" >"$T/$name-recipe.json"
  code=0
  "$ENVBISECT" run "$T/$name-good.json" "$T/$name-bad.json" --recipe "$T/$name-recipe.json" --deterministic \
    --out "$T/$name-run" >"$T/$name-out.txt" 2>/dev/null || code=$?
  git -C "$repo" bisect start main rel >/dev/null
  (cd "$repo" && git bisect run sh "$T/test.sh" "$repo" "$T/$name-git.log" >"$T/$name-git.txt" 2>&1) || true
  git -C "$repo" bisect reset >/dev/null 2>&1 || true
}

# The merge base m1 is good; the culprit is on main after the fork.
git init -q -b main "$T/na"
commit "$T/na" base fast; commit "$T/na" m1
git -C "$T/na" checkout -qb rel; commit "$T/na" r1; commit "$T/na" r2; git -C "$T/na" checkout -q main
for c in m2 m3; do commit "$T/na" $c; done; commit "$T/na" culprit slow; for c in m4 m5 m6; do commit "$T/na" $c; done
run_both na
[[ $code -eq 0 ]] || { cat "$T/na-out.txt" >&2; echo "expected exit 0, got $code" >&2; exit 1; }
culprit=$(git -C "$T/na" rev-parse main~3)
expect_contains "$T/na-git.txt" "$culprit is the first bad commit"
expect_contains "$T/na-out.txt" "inside repos/r: first bad $culprit"
expect_contains "$T/na-out.txt" "merge base $(git -C "$T/na" merge-base rel main) tested good first"
# Ours: the anchors (r2, m6), git's questions (the merge base m1 first), the two boundary re-runs.
"$PY" - "$T/na-ours.log" "$T/na-git.log" <<'PY'
import sys
ours, git = (open(p).read().split() for p in sys.argv[1:])
assert git[0] == "m1", git
assert ours[:2] == ["r2", "m6"] and ours[2:-2] == git, (ours, git)
PY

# The merge base (m2) is already bad; rel fixed it. git bisect stops; so does envbisect, exit 1.
git init -q -b main "$T/fixed"
commit "$T/fixed" base fast; commit "$T/fixed" m1; commit "$T/fixed" culprit slow; commit "$T/fixed" m2
git -C "$T/fixed" checkout -qb rel; commit "$T/fixed" fix fast; git -C "$T/fixed" checkout -q main
for c in m3 m4; do commit "$T/fixed" $c; done
run_both fixed
[[ $code -eq 1 ]] || { cat "$T/fixed-out.txt" >&2; echo "expected exit 1, got $code" >&2; exit 1; }
expect_contains "$T/fixed-git.txt" "merge base $(git -C "$T/fixed" merge-base rel main) is bad"
expect_contains "$T/fixed-out.txt" "the merge base $(git -C "$T/fixed" merge-base rel main) of good and bad is bad"
not grep -q "first bad $(git -C "$T/fixed" rev-parse main)" "$T/fixed-out.txt"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["found"] is False and not r["refinements"][0]["found"], r' \
  "$T/fixed-run/result.json"
