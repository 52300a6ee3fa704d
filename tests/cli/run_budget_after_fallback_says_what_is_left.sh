#!/usr/bin/env bash
# A run stopped by --budget never says "0 more candidates": the settle line's worst case must cover
# what is left. After one-run mode falls back to statistics (a candidate's runs disagreed), the search
# asks its questions again, so more decisions than the plan's worst case can have been made already;
# on the H200 such a stop printed "at worst about 0 more candidates, 0 runs, 0 s". Here a+b fails
# every run, a alone every other run, b never; each run takes 0.4 s (23 runs to the end since failure
# rates decide after the fallback, every run kept), and the budget ends the run around the time the
# search is asked again on failure rates.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
wheel() {  # wheel NAME VERSION NEW
  rm -rf "$T/src"
  mkdir -p "$T/src/$1"
  echo "NEW = $3" >"$T/src/$1/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name "$1" --version "$2" --src "$T/src" --out "$W" >/dev/null
}
wheel a 1.0 False
wheel a 2.0 True
wheel b 1.0 False
wheel b 2.0 True
cat >"$T/bench.py" <<PY
import json, os, sys, time, a, b
time.sleep(0.4)
counter = "$T/a-alone-runs"
if a.NEW and b.NEW:
    sys.stderr.write("RuntimeError: race in compile\n")
    sys.exit(1)
if a.NEW:
    n = int(open(counter).read()) if os.path.exists(counter) else 0
    open(counter, "w").write(str(n + 1))
    if n % 2 == 0:
        sys.stderr.write("RuntimeError: race in compile\n")
        sys.exit(1)
print(json.dumps({"m": 1000.0}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "direction": "higher", "repeats": 3}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"a": "1.0", "b": "1.0"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"a": "2.0", "b": "2.0"}}' >"$T/bad.json"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --budget 9s --out "$T/run" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 1 ]] || { echo "expected exit 1 (stopped at the budget), got $rc"; cat "$T/out.txt" "$T/err.txt"; exit 1; }
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["found"] is False and r["outcome"] == "budget", (r["found"], r.get("outcome"))
left = r["budget"]["worst_case_left"]
assert left["decisions"] >= 1 and left["runs"] >= 1, left
PY
not grep -q "about 0 more candidates" "$T/out.txt"
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
