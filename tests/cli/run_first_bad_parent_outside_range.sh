#!/usr/bin/env bash
# A first bad commit whose parents lie outside `bad ^good` -- the first commit of a branch forked
# before good and merged after it, or the root of an unrelated history merged in -- is named as git
# bisect names it, but its "last good" is the good end, which is not its parent: the output says so
# instead of reading as good -> first bad. A first bad commit whose parent is good says nothing more.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
n=0
commit() {  # commit MESSAGE
  n=$((n + 1))
  echo "$1" >"$T/repo/f-$1"
  git -C "$T/repo" add -A
  GIT_COMMITTER_DATE="@$((1767225600 + n * 3600)) +0000" GIT_AUTHOR_DATE="@$((1767225600 + n * 3600)) +0000" \
    git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false commit -qm "$1"
}
merge() {  # merge BRANCH [git merge options]
  n=$((n + 1))
  GIT_COMMITTER_DATE="@$((1767225600 + n * 3600)) +0000" GIT_AUTHOR_DATE="@$((1767225600 + n * 3600)) +0000" \
    git -C "$T/repo" -c user.name=t -c user.email=t@e merge -q --no-ff --no-edit "$@"
}
git init -q -b main "$T/repo"
commit base; commit m0
git -C "$T/repo" checkout -qb side; commit s1; commit s2; git -C "$T/repo" checkout -q main
commit m1; good=$(git -C "$T/repo" rev-parse HEAD); commit m2
git -C "$T/repo" checkout -q --orphan other; git -C "$T/repo" rm -rfq .; commit o1; commit o2
git -C "$T/repo" checkout -q main; merge side; merge other --allow-unrelated-histories; commit m3
id() { git -C "$T/repo" rev-list --all --grep "^$1\$"; }
echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"repos\": {\"r\": {\"path\": \"$T/repo\", \"commit\": \"$good\"}}}" >"$T/good.json"
echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"repos\": {\"r\": {\"path\": \"$T/repo\", \"commit\": \"$(id m3)\"}}}" >"$T/bad.json"
bisect() {  # bisect CULPRIT: the run's output in $T/CULPRIT.txt
  echo "{\"format\": 1, \"command\": [\"sh\", \"-c\", \"git -C {repo.r} merge-base --is-ancestor $(id "$1") HEAD && exit 1; exit 0\"]}" >"$T/recipe.json"
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --deterministic --out "$T/run-$1" >"$T/$1.txt" 2>/dev/null
  expect_contains "$T/$1.txt" "first bad $(id "$1")"
}
bisect s1
expect_contains "$T/s1.txt" "its parent $(id m0 | cut -c1-12) lies outside the range"
bisect o1
expect_contains "$T/o1.txt" "it is a root commit (no parent): the last good shown is the good end, not a parent of it"
bisect m2
not grep -q "the last good shown is the good end" "$T/m2.txt"
bisect s2
not grep -q "the last good shown is the good end" "$T/s2.txt"
