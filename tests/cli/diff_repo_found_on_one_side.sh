#!/usr/bin/env bash
# A repository path is found beside each state file. When one side's repository is not there (a copy
# of the state in another folder, a symlink to it), its ref stays as written while the other side's
# resolves to an id: "v1 -> v1 (2c77...) changed" was a false difference, and --exit-code said the
# states differ. Both sides are compared as written, with a warning naming the file and the field.
source "$(dirname "$0")/common.sh"
git init -q "$T/repo"
git -C "$T/repo" -c user.email=a@b -c user.name=a commit -q --allow-empty -m one
git -C "$T/repo" tag v1
echo '{"format": 1, "repos": {"x": {"path": "repo", "commit": "v1"}}, "env": {"E": "a"}}' >"$T/state.json"
mkdir -p "$T/other"
ln -s ../state.json "$T/other/link.json"
cp "$T/state.json" "$T/other/copy.json"
for side in link copy; do
  rc=0
  "$ENVBISECT" diff "$T/other/$side.json" "$T/state.json" --exit-code >"$T/out.txt" 2>"$T/err.txt" || rc=$?
  [[ $rc -eq 0 ]] || { echo "$side: expected exit 0 (no difference), got $rc"; cat "$T/out.txt" "$T/err.txt"; exit 1; }
  expect_contains "$T/out.txt" "The states are identical"
  expect_contains "$T/err.txt" "warning: $T/other/$side.json: /repos/x: $T/other/repo is not a directory; both sides compared as written"
done
# Both found: a tag and the id it names are still one commit, no warning.
id=$(git -C "$T/repo" rev-parse HEAD)
echo "{\"format\": 1, \"repos\": {\"x\": {\"path\": \"repo\", \"commit\": \"$id\"}}, \"env\": {\"E\": \"a\"}}" >"$T/by-id.json"
"$ENVBISECT" diff "$T/state.json" "$T/by-id.json" --exit-code >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "The states are identical"
[[ ! -s $T/err.txt ]] || { echo "unexpected warning:"; cat "$T/err.txt"; exit 1; }
