#!/usr/bin/env bash
# A commit range (with a merge) whose culprit cannot be tested (the test exits 125 there, as git bisect
# run's "skip"): the run exits 1 and says which commits the first bad could be -- by their ids, the
# same set `git bisect run` lists -- not by positions in its own list.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/repo"
commit() { echo "$1" >"$T/repo/$2"; git_c add -A; git_c commit -qm "$1"; }
for i in 1 2 3; do commit "c$i" n; done
git_c checkout -qb side && commit side1 s && commit side2 s && git_c checkout -q main
commit c4 n && git_c merge -q --no-ff -m merge side
for i in 5 6 7 8 9; do commit "c$i" n; done
culprit=$(git -C "$T/repo" rev-list --grep '^c6$' HEAD)
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"repos\": {\"app\": {\"path\": \"repo\", \"commit\": \"$1\"}}}"
}
state "$(git -C "$T/repo" rev-list --reverse HEAD | sed -n 1p)" >"$T/good.json"
state "$(git -C "$T/repo" rev-parse HEAD)" >"$T/bad.json"
cat >"$T/test.sh" <<'SH'
[ "$(git -C "$1" rev-parse HEAD)" = "$2" ] && exit 125
git -C "$1" merge-base --is-ancestor "$2" HEAD && exit 1
exit 0
SH
echo "{\"format\": 1, \"command\": [\"sh\", \"$T/test.sh\", \"{repo.app}\", \"$culprit\"]}" >"$T/recipe.json"

code=0
(cd "$T" && "$ENVBISECT" run good.json bad.json --recipe recipe.json --deterministic --out "$T/run") >"$T/out.txt" 2>&1 || code=$?
[[ $code -eq 1 ]] || { cat "$T/out.txt" >&2; echo "expected exit 1, got $code" >&2; exit 1; }
after=$(git -C "$T/repo" rev-list --grep '^c7$' HEAD)
expect_contains "$T/out.txt" "the first bad could be any of $culprit,$after"
expect_contains "$T/out.txt" "skip at $culprit: untestable"
# The re-run was of bad minus the causes and good plus the cause (here the anchors): the summary says
# so, and not that a last good and a lowest bad commit were run again.
expect_contains "$T/out.txt" "re-run: bad minus the causes and good plus the cause gave the same answers on a second run (they are the good and the bad anchor: nothing new verified); the first bad inside the refined axis stays undecided"
not grep -q "^verified: the last good and the first bad" "$T/out.txt"
not grep -q "the last good and the lowest bad" "$T/out.txt"

# git bisect run names the same two commits.
git -C "$T/repo" bisect start "$(git -C "$T/repo" rev-parse HEAD)" "$(git -C "$T/repo" rev-list --reverse HEAD | sed -n 1p)" >/dev/null
(cd "$T/repo" && git bisect run sh "$T/test.sh" "$T/repo" "$culprit" >"$T/git.txt" 2>&1) || true
git -C "$T/repo" bisect reset >/dev/null 2>&1 || true
expect_contains "$T/git.txt" "$culprit"
expect_contains "$T/git.txt" "$after"
