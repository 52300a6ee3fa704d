#!/usr/bin/env bash
# A candidate replicated beside fresh anchor runs keeps that verdict when a later stage asks for it
# again, and is not replicated a second time. Two threads first measure between the anchors (its
# first six runs: intermediate on the pooled anchors), then as slow as bad: the refinement
# replicates it, and the fresh rounds call it bad. The probe of the same count with the cache as in
# the cause is the same candidate: it must take that verdict, with no new runs, where it used to
# be judged on the pooled runs again (intermediate) and replicated once more, three runs a round.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys
threads, cache = int(sys.argv[1]), sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
warm = os.path.exists(os.path.join(cache, "compiled"))
open(os.path.join(cache, "compiled"), "w").write("kernels")
m = 1000.0 if threads == 1 else 200.0
if threads == 2:
    counter = os.path.join(here, "runs-2-%s.log" % ("warm" if warm else "cold"))
    with open(counter, "a") as f:
        f.write("x")
    m = 600.0 if os.path.getsize(counter) <= 6 else 200.0
print(json.dumps({"m": m * (1 + os.getpid() % 7 / 100)}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{threads.workers}", "{cache.c}"], "metric": "m", "repeats": 3}
JSON
state() {
  system_state "\"threads\": {\"workers\": $1}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"cold\"}}"
}
state 1 >"$T/good.json"
state 3 >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "threads/workers 1 -> 3"
expect_contains "$T/out.txt" "first bad 2, last good 1"
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, sys
journal = [json.loads(l) for l in open(sys.argv[1])]
decisions = [r for r in journal if r["type"] == "decision"]
two = [d for d in decisions if d["label"].startswith("threads/workers = 2") and "c:warm" not in d["label"]]
assert len(two) >= 2, [d["label"] for d in decisions]
replicated = [d for d in two if d.get("replicated_rounds")]
assert len(replicated) == 1, [(d["stage"], d["verdict"], d.get("replicated_rounds"), d["runs"]) for d in two]
first = replicated[0]
assert first["verdict"] == "bad", first
for later in two[two.index(first) + 1:]:
    assert later["verdict"] == "bad" and later["runs"] == first["runs"], (first, later)
    assert later["reason"].startswith("as replicated earlier: "), later["reason"]
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
