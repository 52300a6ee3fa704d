#!/usr/bin/env bash
# A git-bisect-run style script with a recipe that names no metric and no outcome: --deterministic is
# enough to run it (the exit status is the result); without the flag the run stops before anything is
# written, with one error naming the file, the field and both ways to say "pass/fail".
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
git_c() { git -C "$T/repo" -c user.name=t -c user.email=t@e -c commit.gpgsign=false "$@"; }
git init -q -b main "$T/repo"
for i in $(seq 1 12); do
  if [[ $i -ge 8 ]]; then echo bad >"$T/repo/mode"; else echo good >"$T/repo/mode"; fi
  echo "$i" >"$T/repo/n"
  git_c add -A && git_c commit -qm "c$i"
done
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"repos\": {\"app\": {\"path\": \"repo\", \"commit\": \"$1\"}}}"
}
state "$(git -C "$T/repo" rev-list --reverse HEAD | sed -n 1p)" >"$T/good.json"
state "$(git -C "$T/repo" rev-parse HEAD)" >"$T/bad.json"
echo '{"format": 1, "command": ["sh", "-c", "! grep -q bad {repo.app}/mode"]}' >"$T/recipe.json"

code=0
(cd "$T" && "$ENVBISECT" run good.json bad.json --recipe recipe.json --out "$T/refused") >"$T/refused.txt" 2>&1 || code=$?
[[ $code -eq 2 ]] || { cat "$T/refused.txt" >&2; echo "expected exit 2, got $code" >&2; exit 1; }
expect_contains "$T/refused.txt" "recipe.json: /metric: missing"
expect_contains "$T/refused.txt" "--deterministic"
[[ ! -e "$T/refused" ]] || { echo "a refused run wrote $T/refused" >&2; exit 1; }

(cd "$T" && "$ENVBISECT" run good.json bad.json --recipe recipe.json --deterministic --out "$T/run") >"$T/out.txt"
expect_contains "$T/out.txt" "inside repos/app: first bad $(git -C "$T/repo" rev-list --reverse HEAD | sed -n 8p)"
"$PY" -c "import json, sys; r = json.load(open(sys.argv[1])); assert r[\"outcome\"] == \"found\" and r[\"mode\"] == \"pass-fail\", r[\"outcome\"]" "$T/run/result.json"
