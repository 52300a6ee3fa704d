#!/usr/bin/env bash
# A bad anchor that fails every run, in two ways (as a compile race on one GPU crashes one run and
# hangs the next), is still a deterministic pass/fail: one run per candidate, exit 0 with the cause.
# A candidate that fails in a third way (a broken mix, ImportError) is not called bad by its exit
# status: it alone is judged on more runs by its failures, as statistics would (set aside as unlike
# either anchor), and the run stays in one-run mode.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys
from runcount import count_run
threads = int(sys.argv[1])
here = os.path.dirname(os.path.abspath(__file__))
if threads >= 3:
    sys.stderr.write("RuntimeError: race in compile\n" if count_run("runs-race") % 2 else "Hang: no step for 3 s\n")
    sys.exit(1)
if os.environ.get("F") == "b" and os.path.exists(os.path.join(here, "broken-mix")):
    sys.stderr.write("ImportError: cannot import name 'flex_attention'\n")
    sys.exit(1)
print(json.dumps({"m": 1000.0 * (1 + os.getpid() % 7 / 100)}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{threads.workers}"], "metric": "m", "repeats": 3}
JSON
system_state "\"threads\": {\"workers\": 1}, \"env\": {\"F\": \"a\"}" >"$T/good.json"
system_state "\"threads\": {\"workers\": 3}, \"env\": {\"F\": \"b\"}" >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/two-ways" >"$T/two-ways.txt" 2>"$T/err.txt" ||
  { echo "expected exit 0"; cat "$T/two-ways.txt" "$T/err.txt"; exit 1; }
expect_contains "$T/two-ways.txt" "anchors look deterministic"
expect_contains "$T/two-ways.txt" "exit:1|Hang"
"$PY" - "$T/two-ways/result.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
assert result["mode"] != "metric", result["mode"]
assert [c["name"] for c in result["cause"]] == ["workers"], result["cause"]
PY

touch "$T/broken-mix"
rc=0
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/mix" >"$T/mix.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 0 || $rc -eq 1 ]] || { echo "expected exit 0 or 1, got $rc"; cat "$T/mix.txt" "$T/err.txt"; exit 1; }
expect_contains "$T/mix.txt" "anchors look deterministic"
expect_contains "$T/mix.txt" "failed unlike any bad anchor run (exit:1|ImportError"
"$PY" - "$T/mix/result.json" "$T/mix/journal.jsonl" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
journal = [json.loads(l) for l in open(sys.argv[2])]
assert result["mode"] != "metric", result["mode"]
assert not any(c["name"] == "F" for c in result.get("cause") or []), result["cause"]
f_alone = [d for d in journal if d["type"] == "decision" and d["label"] == "{env/F}"]
assert f_alone and all(d["verdict"] == "skip" and d["runs"] >= 3 for d in f_alone), f_alone
PY
[[ -n "${SHOW:-}" ]] && cat "$T/two-ways.txt" "$T/mix.txt"; true
