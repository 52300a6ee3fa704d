#!/usr/bin/env bash
# A budget that runs out while a thread count is being refined leaves the refinement "not finished"
# (resume to continue), never "boxed in by untestable points": the points were not run, not
# untestable. Budgets are tried from small to large until one stops the run inside the refinement.
# Each benchmark run takes a fixed 0.3 s; its metric is set by the thread count (bad from 4 on).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, sys, time
time.sleep(0.3)
print(json.dumps({"m": 200.0 if int(sys.argv[1]) >= 4 else 1000.0}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{threads.workers}"], "metric": "m", "repeats": 3}
JSON
for n in 1 16; do
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"threads\": {\"workers\": $n}}" \
    >"$T/state$n.json"
done
landed=""
for budget in 5 6 7 8 9 10 11 12; do
  rm -rf "$T/run"
  rc=0
  "$ENVBISECT" run "$T/state1.json" "$T/state16.json" --recipe "$T/recipe.json" --out "$T/run" --no-probe \
    --budget "${budget}s" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
  if [[ $rc == 1 ]] && grep -q '"type": *"refine"' "$T/run/journal.jsonl" && grep -q "stopped at the budget" "$T/out.txt"; then
    landed=$budget
    break
  fi
done
[[ -n "$landed" ]] || { echo "no budget from 5 s to 12 s stopped the run inside the refinement" >&2; cat "$T/out.txt" >&2; exit 1; }
if grep -qF "boxed in by untestable points" "$T/out.txt"; then
  echo "a budget stop was called boxed in by untestable points" >&2; cat "$T/out.txt" >&2; exit 1
fi
expect_contains "$T/out.txt" "not finished: the budget ran out"
"$PY" - "$T/run" <<'PY'
import json, sys
journal = [json.loads(l) for l in open(f"{sys.argv[1]}/journal.jsonl")]
refine = [x["refine"] for x in journal if x["type"] == "refine"]
assert refine and not refine[-1]["found"] and "budget ran out" in refine[-1]["note"], refine
PY
# Resumed with room to spare, the refinement finishes: first bad 4, last good 3.
"$ENVBISECT" resume "$T/run" --budget 10m >"$T/resume.txt" 2>"$T/err2.txt"
expect_contains "$T/resume.txt" "first bad"
expect_contains "$T/resume.txt" "4 (last good 3)"
