#!/usr/bin/env bash
# A benchmark that writes into its {repo.app} checkout (an in-tree build, an edited tracked file, a
# moved HEAD) must not change what the next attempt or another candidate at the same commit measures:
# the checkout is checked before each use, like an environment, and made again (with a warning naming
# what changed) when it changed. The metric is the commit's own (fast at c1, slow from c2 on) in a
# clean tree and slow in a dirty one at any commit; a shared dirty checkout measures the wrong thing.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
need git git
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/repo"
for i in 1 2 3 4 5; do
  echo "$i" >"$T/repo/n"
  git_c add -A && GIT_AUTHOR_DATE="2026-11-0${i}T00:00:00Z" GIT_COMMITTER_DATE="2026-11-0${i}T00:00:00Z" git_c commit -qm "c$i"
done
second=$(git -C "$T/repo" rev-parse HEAD~3)

cat >"$T/bench.py" <<'PY'
import json, os, subprocess, sys
tree = sys.argv[1]
git = lambda *args: subprocess.run(["git", "-C", tree, *args], check=True, capture_output=True, text=True).stdout.strip()
status = git("status", "--porcelain", "--untracked-files=all")
head = git("rev-parse", "HEAD")
print("entry:", "dirty" if status else "clean", head, tree, repr(status), file=sys.stderr)
n = int(open(os.path.join(tree, "n")).read().split()[0])
# An in-tree build, an edited tracked file, and HEAD moved: all left behind for whoever comes next.
os.makedirs(os.path.join(tree, "build"), exist_ok=True)
open(os.path.join(tree, "build", "ext.so"), "w").write("built")
open(os.path.join(tree, "n"), "w").write("9\n")
parent = subprocess.run(["git", "-C", tree, "rev-parse", "-q", "--verify", "HEAD~1"], capture_output=True, text=True)
if parent.returncode == 0:
    git("update-ref", "--no-deref", "HEAD", parent.stdout.strip())
print(json.dumps({"items_per_s": 1000.0 if n <= 1 and not status else 200.0}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{repo.app}"], "metric": "items_per_s", "repeats": 3}
JSON
echo '{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"}, "repos": {"app": {"path": "repo", "commit": "HEAD~4"}}}' >"$T/good.json"
echo '{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"}, "repos": {"app": {"path": "repo", "commit": "main"}}}' >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "inside repos/app: first bad $second"
# Every attempt started in a clean tree at the commit its checkout is named for.
grep -rqs --include=stderr.txt "entry: clean" "$T/run/attempts"
if grep -rqs --include=stderr.txt "entry: dirty" "$T/run/attempts"; then
  echo "an attempt found a checkout an earlier attempt had written into:" >&2
  grep -rs --include=stderr.txt "entry: dirty" "$T/run/attempts" | sed -n 1,5p >&2
  exit 1
fi
"$PY" - "$T/run" <<'PY'
import glob, sys
entries = 0
for path in glob.glob(sys.argv[1] + "/attempts/*/*/stderr.txt"):
    for line in open(path):
        if line.startswith("entry: "):
            _, state, head, tree = line.split(" ", 4)[:4]
            assert tree.rsplit("-", 1)[1] == head[:12], (path, line)
            entries += 1
assert entries >= 10, entries
PY
# Each redo is said, naming what changed.
expect_contains "$T/err.txt" "changed since it was checked out (.git/HEAD, build, build/ext.so, n); checking it out again"
# The repository itself is untouched.
[[ -z "$(git -C "$T/repo" status --porcelain)" ]]
[[ "$(git -C "$T/repo" rev-parse HEAD)" == "$(git -C "$T/repo" rev-parse main)" ]]
