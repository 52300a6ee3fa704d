#!/usr/bin/env bash
# `store gc --older-than 0` while a run is going keeps the shared environments the run uses (the run
# holds the store shared; gc says what it kept), so the run finishes with its cause; once the run is
# over the same gc removes them. Absurd ages (negative, nan, inf, 1e300, past 100 years, where an
# int64 once overflowed into "delete everything") are refused with exit 2 and remove nothing.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
mkdir -p "$W"
for v in 1.0 2.0; do
  for pkg in p q; do
    mkdir -p "$T/src/$pkg-$v/$pkg"
    echo "NEW = '$v' == '2.0'" >"$T/src/$pkg-$v/$pkg/__init__.py"
    "$PY" "$SRC/scripts/make_wheel.py" --name "$pkg" --version "$v" --src "$T/src/$pkg-$v" --out "$W" >/dev/null
  done
done
cat >"$T/bench.py" <<'PY'
import json, os, time, p, q
time.sleep(0.4)  # long enough for gc to run beside the attempts
print(json.dumps({"m": (200.0 if p.NEW else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
state() { echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"p\": \"$1\", \"q\": \"$1\"}}"; }
state 1.0 >"$T/good.json"
state 2.0 >"$T/bad.json"
S="$T/store"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$S" \
  --no-probe --out "$T/run" >"$T/run.txt" 2>&1 &
run=$!
for _ in $(seq 300); do grep -qs '"type":"attempt"' "$T/run/journal.jsonl" && break; sleep 0.1; done
grep -q '"type":"attempt"' "$T/run/journal.jsonl"
"$ENVBISECT" store gc --store "$S" --older-than 0 >"$T/gc.txt"
expect_contains "$T/gc.txt" "a running envbisect run holds the store"
ls "$S"/envs/*/envbisect-built.json >/dev/null
wait "$run" || { cat "$T/run.txt"; exit 1; }
expect_contains "$T/run.txt" "cause"
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, sys
attempts = [json.loads(l) for l in open(sys.argv[1]) if '"type":"attempt"' in l]
assert attempts and all(a["status"] == "ok" for a in attempts), [a for a in attempts if a["status"] != "ok"]
PY

for age in -1 nan inf -inf 1e300 106752 36501; do
  rc=0; "$ENVBISECT" store gc --store "$S" --older-than "$age" >"$T/bad.txt" 2>&1 || rc=$?
  [[ $rc -eq 2 ]] || { cat "$T/bad.txt"; echo "--older-than $age: exit $rc, expected 2" >&2; exit 1; }
done
ls "$S"/envs/*/envbisect-built.json >/dev/null  # nothing was removed by the refused ones

"$ENVBISECT" store gc --store "$S" --older-than 0 >"$T/gc2.txt"
not grep -q "holds the store" "$T/gc2.txt"
not ls "$S"/envs/*/envbisect-built.json 2>/dev/null
