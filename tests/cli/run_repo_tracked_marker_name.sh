#!/usr/bin/env bash
# A repository may track any file name, including ones envbisect could use for its own bookkeeping
# (`.envbisect-complete`, `.envbisect-identity`): each candidate's {repo.app} holds the commit's files
# exactly as `git checkout` writes them, nothing added or replaced, `git status` clean.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
need git git
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/repo"
for name in .envbisect-complete .envbisect-identity .envbisect; do
  echo "the project's own $name" >"$T/repo/$name"
done
for i in 1 2 3 4; do
  echo "$i" >"$T/repo/n"
  git_c add -A && GIT_AUTHOR_DATE="2026-11-0${i}T00:00:00Z" GIT_COMMITTER_DATE="2026-11-0${i}T00:00:00Z" git_c commit -qm "c$i"
done
second=$(git -C "$T/repo" rev-parse HEAD~2)

# Exit 1 (a failure, not a metric) unless the tree is the commit's, file for file.
cat >"$T/bench.py" <<'PY'
import json, os, subprocess, sys
tree = sys.argv[1]
status = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--untracked-files=all", "--ignored"],
                        check=True, capture_output=True, text=True).stdout
names = sorted(n for n in os.listdir(tree) if n != ".git")
expected = [".envbisect", ".envbisect-complete", ".envbisect-identity", "n"]
for name in expected[:3]:
    if open(os.path.join(tree, name)).read() != "the project's own " + name + "\n":
        sys.exit("RuntimeError: " + name + " is not the commit's")
if status or names != expected:
    sys.exit("RuntimeError: tree differs from the commit: %r %r" % (status, names))
n = int(open(os.path.join(tree, "n")).read())
print(json.dumps({"items_per_s": 1000.0 if n <= 1 else 200.0}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{repo.app}"], "metric": "items_per_s", "repeats": 3}
JSON
echo '{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"}, "repos": {"app": {"path": "repo", "commit": "HEAD~3"}}}' >"$T/good.json"
echo '{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"}, "repos": {"app": {"path": "repo", "commit": "main"}}}' >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "inside repos/app: first bad $second"
if grep -rqs --include=stderr.txt "RuntimeError" "$T/run/attempts"; then
  grep -rs --include=stderr.txt "RuntimeError" "$T/run/attempts" | sed -n 1,3p >&2
  exit 1
fi
# A resumed run reuses the checkouts as they are (nothing redone, nothing added).
"$ENVBISECT" resume "$T/run" >"$T/out2.txt" 2>"$T/err2.txt"
expect_contains "$T/out2.txt" "inside repos/app: first bad $second"
if grep -q "checking it out again" "$T/err.txt" "$T/err2.txt"; then
  grep "checking it out again" "$T/err.txt" "$T/err2.txt" >&2
  exit 1
fi
