#!/usr/bin/env bash
# bench/gitparity/run.sh on generated histories of the shapes that real ranges rarely have in one place,
# each made with real git: an octopus merge of three branches, a criss-cross (two branches merged into
# each other both ways, then merged), an unrelated root merged in (a root commit inside the range), a
# side branch merged twice, and a good commit on a release branch that bad never merged (git bisect
# asks the merge base first). Prints each history's table and metrics; exits 1 when any first bad
# commit differs from git's.
# Usage: bench/gitparity/hostile.sh [culprits]   Env: BUILD (build dir, default build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
culprits="${1:-6}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME="$work" GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e
n=0
at() { n=$((n + 1)); export GIT_AUTHOR_DATE="@$((1767225600 + n * 3600)) +0000" GIT_COMMITTER_DATE="@$((1767225600 + n * 3600)) +0000"; }
g() { git -C "$R" "$@"; }
c() { at; echo "$1" >"$R/f-$1"; g add -A; g commit -qm "$1"; g tag "$1"; }       # c NAME: a commit, tagged NAME
m() { at; local name=$1; shift; g merge -q --no-ff --no-edit -m "$name" "$@"; g tag "$name"; }  # m NAME BRANCH...
new() { R="$work/$1"; git init -q -b main "$R"; }

new octopus
c base; c m1; g checkout -qb a; c a1; c a2; g checkout -qb b base; c b1; c b2; c b3
g checkout -qb cc base; c c1; g checkout -q main; c m2; m oct a b cc; c m3; c m4
new crisscross
c base; c m1; g checkout -qb x; c x1; g checkout -qb y main; c y1; g checkout -q x; c x2; g checkout -q y; c y2
g checkout -q x; m xmy y; g checkout -q y; m ymx x~1; g checkout -q x; c x3; g checkout -q y; c y3
g checkout -q x; m xmy2 y; g checkout -q main; c m2; m mx x; c m3
new root
c base; c m1; g checkout -q --orphan other; g rm -rfq .; c o1; c o2; c o3; g checkout -q main; c m2
m mo other --allow-unrelated-histories; c m3
new twice
c base; c m1; g checkout -qb side; c s1; c s2; g checkout -q main; c m2; m t1 side; c m3
g checkout -q side; c s3; c s4; g checkout -q main; c m4; m t2 side; c m5
new release
c base; c m1; g checkout -qb rel; c r1; c r2; g checkout -q main; for i in 2 3 4 5 6 7 8; do c "m$i"; done

status=0
for spec in "octopus base m4" "crisscross base m3" "root base m3" "twice base m5" "release r2 m8"; do
  set -- $spec
  echo "== $1"
  "$here/run.sh" "$work/$1" "$2" "$3" "$culprits" || status=1
done
exit $status
