#!/usr/bin/env bash
# Cache states are real and isolated: a cold run gets an empty cache directory, a warm run a private
# copy of what the warm-up left; what a run writes into its cache never reaches the snapshot or the
# next run. The benchmark here is fast only with a warm cache, so the cache is the whole cause.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys, time
cache = sys.argv[1]
seen = sorted(os.listdir(cache))
if len(sys.argv) > 2:  # the warm-up fills the cache
    open(os.path.join(cache, "compiled"), "w").write("kernels")
with open(os.path.join(cache, f"scratch-{os.getpid()}"), "w") as f:
    f.write("written by a run")  # must never reach the snapshot or another run
time.sleep(0.02)
warm = "compiled" in seen
print(json.dumps({"m": (1000.0 if warm else 200.0) * (1 + os.getpid() % 7 / 100), "seen": seen}))
PY
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{cache.c}"],
 "warmup": ["{python}", "{recipe_dir}/bench.py", "{cache.c}", "warmup"], "metric": "m", "repeats": 3}
JSON
state() {
  echo "{\"format\": 1, \"python\": {\"interpreter\": \"/usr/bin/python3\", \"venv\": \"none\"},
         \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"$1\"}}, \"env\": {\"X\": \"$2\"}}"
}
state warm a >"$T/good.json"
state cold b >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" --no-probe >"$T/out.txt"
expect_contains "$T/out.txt" "caches/c warm -> cold"
expect_contains "$T/out.txt" "verified: good + cause -> bad; bad - cause -> good"

"$PY" - "$T/run" <<'PY'
import glob, json, os, sys
run = sys.argv[1]
# One snapshot per warm-up input set (here: per value of X). Each holds exactly what its warm-up wrote
# (the kernels and the warm-up's own scratch file), nothing that a later run wrote.
snaps = [frozenset(os.listdir(d)) for d in glob.glob(f"{run}/warm/*/c")]
assert snaps and all("compiled" in s and len(s) == 2 for s in snaps), snaps
attempts = [json.loads(l) for l in open(f"{run}/journal.jsonl") if '"type":"attempt"' in l]
warm_seen, cold_seen = [], []
for a in attempts:
    line = [l for l in open(a["stdout"]) if l.startswith("{")][-1]
    seen = set(json.loads(line)["seen"])
    (warm_seen if "compiled" in seen else cold_seen).append(seen)
assert warm_seen and cold_seen, (len(warm_seen), len(cold_seen))
assert all(s in snaps for s in warm_seen), "a warm run saw files other than its snapshot's"
assert all(s == set() for s in cold_seen), "a cold run saw files"
PY
