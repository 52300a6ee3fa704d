#!/usr/bin/env bash
# Store-built environments are reused across runs by environment hash: a second run on the same
# inputs and store rebuilds none of the environments the first built (their build records say
# "reused") and finds the same cause. The benchmark's speed is set by its packages, not by CPU timing.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
mkdir -p "$W"
for pkg in p q r; do
  for v in 1.0 2.0; do
    mkdir -p "$T/src/$pkg-$v/$pkg"
    echo "NEW = '$v' == '2.0'" >"$T/src/$pkg-$v/$pkg/__init__.py"
    "$PY" "$SRC/scripts/make_wheel.py" --name "$pkg" --version "$v" --src "$T/src/$pkg-$v" --out "$W" >/dev/null
  done
done
cat >"$T/bench.py" <<'PY'
import json, os, p, q, r
slow = p.NEW and q.NEW  # an interaction: neither alone
print(json.dumps({"m": (200.0 if slow else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
state() { echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"p\": \"$1\", \"q\": \"$1\", \"r\": \"$1\"}}"; }
state 1.0 >"$T/good.json"
state 2.0 >"$T/bad.json"
for n in 1 2; do
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
    --no-probe --out "$T/run$n" >"$T/out$n.txt"
  expect_contains "$T/out$n.txt" "cause (2 differences, together):"
done
"$PY" - "$T/run1/journal.jsonl" "$T/run2/journal.jsonl" "$T/store" <<'PY'
import json, sys
first = [json.loads(l) for l in open(sys.argv[1]) if '"type":"build"' in l]
second = [json.loads(l) for l in open(sys.argv[2]) if '"type":"build"' in l]
assert first and not any("reused" in b for b in first), first
assert {b["env_hash"] for b in second} == {b["env_hash"] for b in first}, "the same search asks the same candidates"
assert all(b.get("reused", "").startswith(sys.argv[3] + "/envs/") and b["ok"] for b in second), second
PY
