#!/usr/bin/env bash
# A checkout is a libgit2 clone: submodules stay empty folders and no filter= attribute runs (Git LFS
# files stay pointer files). Each is said once per checkout, naming the paths, so a benchmark that
# needs them is not measured against something else in silence; files, modes and links otherwise
# match `git checkout` of the commit.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
need git git
git_c() { git -C "$1" -c user.name=t -c user.email=t@e -c commit.gpgsign=false -c protocol.file.allow=always "${@:2}"; }
git init -q -b main "$T/lib"
echo lib >"$T/lib/lib.txt"
git_c "$T/lib" add -A && git_c "$T/lib" commit -qm lib
R="$T/repo"
git init -q -b main "$R"
printf '*.bin filter=lfs diff=lfs merge=lfs -text\nident.txt ident\ncrlf.txt eol=crlf\n' >"$R/.gitattributes"
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%064d\nsize 12345\n' 0 >"$R/model.bin"
printf '$Id$\n' >"$R/ident.txt"
printf 'a\nb\n' >"$R/crlf.txt"
printf '#!/bin/sh\necho hi\n' >"$R/run.sh" && chmod +x "$R/run.sh"
ln -s n "$R/link"
git_c "$R" submodule add -q "$T/lib" third_party/lib
for i in 1 2 3; do
  echo "$i" >"$R/n"
  git_c "$R" add -A && GIT_AUTHOR_DATE="2026-11-0${i}T00:00:00Z" GIT_COMMITTER_DATE="2026-11-0${i}T00:00:00Z" git_c "$R" commit -qm "c$i"
done

cat >"$T/bench.py" <<'PY'
import json, os, sys
n = int(open(os.path.join(sys.argv[1], "n")).read())
print(json.dumps({"items_per_s": 1000.0 if n <= 1 else 200.0}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{repo.app}"], "metric": "items_per_s", "repeats": 3}
JSON
echo '{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"}, "repos": {"app": {"path": "repo", "commit": "HEAD~2"}}}' >"$T/good.json"
echo '{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"}, "repos": {"app": {"path": "repo", "commit": "main"}}}' >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "inside repos/app: first bad $(git -C "$R" rev-parse HEAD~1)"
expect_contains "$T/err.txt" "submodules left as empty folders (as \`git clone\` without --recurse-submodules leaves them): third_party/lib"
expect_contains "$T/err.txt" "files with the attribute filter=lfs written as stored in git (Git LFS pointer files, not their content), the filter not run: model.bin"
# Once per checkout: three commits measured, three of each.
[[ $(grep -c "submodules left as empty folders" "$T/err.txt") -eq 3 ]]
[[ $(grep -c "filter=lfs" "$T/err.txt") -eq 3 ]]
# Otherwise the tree is what `git checkout` writes: contents, executable bits, links.
git clone -q "$R" "$T/cloned"
git -C "$T/cloned" checkout -q HEAD~2
dir=$(ls -d "$T/run/repos/"app-"$(git -C "$R" rev-parse HEAD~2 | cut -c1-12)")
diff -r --no-dereference -x .git "$T/cloned" "$dir"
[[ -x "$dir/run.sh" && -L "$dir/link" && -d "$dir/third_party/lib" ]]
[[ -z "$(ls -A "$dir/third_party/lib")" ]]
