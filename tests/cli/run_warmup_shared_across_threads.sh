#!/usr/bin/env bash
# A warm-up that never reads a thread count leaves the same caches at every count: candidates that
# differ only in threads share one warm snapshot (on a GPU each warm-up is a cold compile). A warm-up
# that does read the count gets a snapshot per count.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
cat >"$T/bench.py" <<'PY'
import json, os, sys
cache, threads = sys.argv[1], int(sys.argv[2])
if len(sys.argv) > 3:  # the warm-up fills the cache
    open(os.path.join(cache, "compiled"), "w").write("kernels")
    print(json.dumps({"m": 1.0}))
    sys.exit(0)
print(json.dumps({"m": 1000.0 if threads == 1 else 150.0}))
PY
state() { system_state "\"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"warm\"}}, \"threads\": {\"n\": $1, \"m\": $2}"; }
state 1 1 >"$T/good.json"
state 3 2 >"$T/bad.json"  # m is read by nothing: the search has two differences to tell apart
fail() { echo "$*" >&2; exit 1; }
warmups() { grep -c '"type":"warmup"' "$1/journal.jsonl"; }

# The warm-up compiles with a fixed count of its own.
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{cache.c}", "{threads.n}"],
 "warmup": ["{python}", "{recipe_dir}/bench.py", "{cache.c}", "1", "warmup"], "metric": "m", "repeats": 3}
JSON
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/fixed" >"$T/fixed.txt"
expect_contains "$T/fixed.txt" "threads/n 1 -> 3"
expect_contains "$T/fixed.txt" "verified: good + cause -> bad; bad - cause -> good"
[[ "$(warmups "$T/fixed")" == 1 ]] || fail "a warm-up that reads no thread count ran $(warmups "$T/fixed") times"
[[ "$(ls -d "$T"/fixed/warm/*/c | wc -l)" == 1 ]] || fail "more than one warm snapshot"

# The warm-up reads the count: one snapshot per count the run asked about.
sed 's/"1", "warmup"/"{threads.n}", "warmup"/' "$T/recipe.json" >"$T/recipe-reads.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe-reads.json" --out "$T/reads" >"$T/reads.txt"
expect_contains "$T/reads.txt" "verified: good + cause -> bad; bad - cause -> good"
snapshots=$(ls -d "$T"/reads/warm/*/c | wc -l)
[[ "$snapshots" -ge 2 && "$(warmups "$T/reads")" == "$snapshots" ]] ||
  fail "warm-ups that read the count: $(warmups "$T/reads") runs, $snapshots snapshots"
