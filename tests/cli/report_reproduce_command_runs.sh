#!/usr/bin/env bash
# The report's reproduce section gives, for each anchor, the benchmark command exactly as it ran: its
# folder, every variable set, every placeholder filled. Copied from report.md and run in a shell, it
# runs that candidate's benchmark and prints what the attempt printed.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
mkdir -p "$W"
for v in 1.0 2.0; do
  mkdir -p "$T/src/p-$v/p"
  echo "NEW = '$v' == '2.0'" >"$T/src/p-$v/p/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name p --version "$v" --src "$T/src/p-$v" --out "$W" >/dev/null
done
cat >"$T/bench.py" <<'PY'
import json, os, sys, p
print(json.dumps({"m": 300.0 if p.NEW else 1000.0, "seed": sys.argv[1], "threads": os.environ["BENCH_THREADS"],
                  "samples": os.environ["SAMPLES"]}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{seed}"], "metric": "m", "unit": "tok/s",
 "repeats": 2, "seed": 42, "env": {"BENCH_THREADS": "{threads.drafter_threads}", "SAMPLES": "{data.train_samples}"}}
JSON
state() { echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"p\": \"$1\"}, \"threads\": {\"drafter_threads\": 3}, \"data\": {\"train_samples\": \"512\"}}"; }
state 1.0 >"$T/good.json"
state 2.0 >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" --no-probe \
  --anchor-runs 3 --out "$T/run" -q >"$T/out.txt"
"$PY" - "$T/run/report.md" "$T/bad.sh" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("## Reproduce", 1)[1].splitlines()
at = next(i for i, l in enumerate(lines) if l.startswith("# benchmark of the bad anchor"))
command = lines[at + 1]
assert "{" not in command, "a placeholder is left: " + command
assert " env -i -- " in command and "SAMPLES=512" in command and "BENCH_THREADS=3" in command, command
open(sys.argv[2], "w").write(command + "\n")
PY
(cd / && bash "$T/bad.sh") >"$T/again.txt"
"$PY" - "$T/again.txt" <<'PY'
import json, sys
doc = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert doc == {"m": 300.0, "seed": "42", "threads": "3", "samples": "512"}, doc
PY
expect_contains "$T/run/report.md" "median (tok/s)"

# `envbisect repro RUN CANDIDATE` rebuilds the candidate's environment (here from a new store) and runs
# it once, printing the exact command; that printed command runs too.
rc=0
"$ENVBISECT" repro "$T/run" nope >/dev/null 2>"$T/nope.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "repro of an unknown candidate: expected exit 2, got $rc"; exit 1; }
"$PY" - "$T/run/run.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["store"] = doc["store"] + "-fresh"  # a store without the run's environments: repro must build them
json.dump(doc, open(sys.argv[1], "w"))
PY
"$ENVBISECT" repro "$T/run" bad >"$T/repro.txt"
expect_contains "$T/repro.txt" "result: ok, m 300 tok/s"
grep '^command: ' "$T/repro.txt" | sed 's/^command: //' >"$T/repro.sh"
grep -q "SAMPLES=512" "$T/repro.sh" && grep -q -- "-fresh/envs/" "$T/repro.sh" || { cat "$T/repro.txt"; exit 1; }
(cd / && bash "$T/repro.sh") | tail -1 | grep -q '"m": 300.0' || { echo "the printed command did not run"; exit 1; }
