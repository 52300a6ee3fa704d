#!/usr/bin/env bash
# The probes find where the cause bites without measuring the whole threads x cache grid: the metric
# depends only on its inputs (bad from 5 threads up, with the cause and a cold cache). By default the
# counts 1..8 are bisected (5 cells measured, the rest inferred and marked so) and the warm cache is
# decided only at the boundary (4 and 5): 7 probe decisions instead of 16. `--probe full` measures
# all 16 cells.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys
threads, cache, cause = int(sys.argv[1]), sys.argv[2], os.environ.get("E") == "b"
warm = os.path.exists(os.path.join(cache, "compiled"))
open(os.path.join(cache, "compiled"), "w").write("kernels")  # a warm-up leaves it; cold runs start empty
bad = cause and threads >= 5 and not warm
print(json.dumps({"m": (200.0 if bad else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{threads.workers}", "{cache.c}"], "metric": "m", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"}, \"threads\": {\"workers\": 8},
         \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"cold\"}}, \"env\": {\"E\": \"$1\"}}"
}
state a >"$T/good.json"
state b >"$T/bad.json"
for mode in boundary full; do
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/$mode" --probe "$mode" >"$T/$mode.txt"
  expect_contains "$T/$mode.txt" "env/E a -> b"
done
expect_contains "$T/boundary.txt" "first bad threads count: 5 (last good 4)"
expect_contains "$T/boundary.txt" "when it bites (threads/workers, c:warm): 4: good, 5: good"
"$PY" - "$T" <<'PY'
import json, sys
def load(mode):
    journal = [json.loads(l) for l in open(f"{sys.argv[1]}/{mode}/journal.jsonl")]
    decided = [r for r in journal if r["type"] == "decision" and r["stage"] == "probe"]
    probes = json.load(open(f"{sys.argv[1]}/{mode}/result.json"))["probes"]
    assert probes == [{k: v for k, v in r.items()} for r in journal if r["type"] == "probe"], "journal = result"
    return decided, probes
def row(probes, cache):
    return {p["value"]: p["verdict"] for p in probes if p["cache"] == cache}
decided, probes = load("boundary")
assert len(decided) == 7, [d["label"] for d in decided]
measured = {p["value"] for p in probes if p["measured"] and p["cache"] == "c:cold"}
assert measured == {1, 4, 5, 6, 8}, measured
assert row(probes, "c:cold") == {1: "good", 2: "inferred good", 3: "inferred good", 4: "good", 5: "bad",
                                 6: "bad", 7: "inferred bad", 8: "bad"}, row(probes, "c:cold")
assert row(probes, "c:warm") == {4: "good", 5: "good"}, row(probes, "c:warm")
assert all(p["median"] is None for p in probes if not p["measured"])
decided, probes = load("full")
assert len(decided) == 16 and all(p["measured"] for p in probes), len(decided)
assert row(probes, "c:cold") == {v: "bad" if v >= 5 else "good" for v in range(1, 9)}, row(probes, "c:cold")
assert row(probes, "c:warm") == {v: "good" for v in range(1, 9)}, row(probes, "c:warm")
PY
