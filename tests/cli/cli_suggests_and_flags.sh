#!/usr/bin/env bash
# The command line helps a new user: a mistyped subcommand or option gets "did you mean", -v works
# after the subcommand too, NO_COLOR turns the log's colours off, and --dry-run gives a time estimate
# from --run-seconds.
source "$(dirname "$0")/common.sh"
need script bsdutils
rc=0
"$ENVBISECT" dif a.json b.json 2>"$T/err1.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; exit 1; }
expect_contains "$T/err1.txt" "unknown subcommand 'dif'; did you mean 'diff'?"
rc=0
"$ENVBISECT" run a.json b.json --recipe r.json --repeat 3 2>"$T/err2.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; exit 1; }
expect_contains "$T/err2.txt" "unknown option '--repeat' for run; did you mean '--repeats'?"

W="$T/wheels"
mkdir -p "$W"
for v in 1.0 2.0; do
  mkdir -p "$T/src/p-$v/p"
  echo "NEW = '$v' == '2.0'" >"$T/src/p-$v/p/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name p --version "$v" --src "$T/src/p-$v" --out "$W" >/dev/null
done
echo 'import json, p; print(json.dumps({"m": 300.0 if p.NEW else 1000.0}))' >"$T/bench.py"
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "2.0"}}' >"$T/bad.json"
args=("$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --no-probe)

# --dry-run: 2 x 5 anchor runs; one difference is the cause, so no candidate to isolate: 10 runs of 20 s.
"$ENVBISECT" run "${args[@]}" --dry-run --run-seconds 20 >"$T/plan.txt"
expect_contains "$T/plan.txt" "time: about 3 min 20 s for the worst case with one culprit (10 runs of 20 s"

# -v after the subcommand logs info lines; on a terminal in colour, with NO_COLOR without.
script -qfc "$(printf '%q ' "$ENVBISECT" run "${args[@]}" --out "$T/colour" --store "$T/store1" -v)" "$T/colour.txt" >/dev/null
expect_contains "$T/colour.txt" "building environment"
grep -q $'\x1b\[32m' "$T/colour.txt" || { echo "no colour without NO_COLOR: the NO_COLOR check proves nothing"; exit 1; }
NO_COLOR=1 script -qfc "$(printf '%q ' "$ENVBISECT" run "${args[@]}" --out "$T/plain" --store "$T/store2" -v)" "$T/plain.txt" >/dev/null
expect_contains "$T/plain.txt" "building environment"
if grep -q $'\x1b\[3[0-9]m' "$T/plain.txt"; then
  echo "NO_COLOR=1 still coloured the log"; exit 1
fi
