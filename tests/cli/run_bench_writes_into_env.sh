#!/usr/bin/env bash
# No candidate may change what another measures. A benchmark that makes its package slow by
# appending to the module (chmod-ing it writable first, as a determined one would; root ignores the
# store's read-only bits anyway) changes the shared store entry through the hard link. Before each
# attempt the environment's file identity is checked: the change is found, the environment and the
# store entry are rebuilt, the build record names the attempt after which it happened, and every
# attempt measures the package as built, so the run still finds p; the report flags the rebuild.
# `store verify` then reports the damage the last attempt left (exit 1), and exit 0 once it is repaired.
source "$(dirname "$0")/common.sh"
W="$T/wheels"
for v in 1.0 2.0; do
  mkdir -p "$T/src-$v/p"
  echo "SLOW = $([[ $v == 2.0 ]] && echo True || echo False)" >"$T/src-$v/p/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name p --version "$v" --src "$T/src-$v" --out "$W" >/dev/null
done
cat >"$T/bench.py" <<'PY'
import json, os, p
slow = p.SLOW
try:
    os.chmod(p.__file__, 0o644)
    with open(p.__file__, "a") as f:
        f.write("\nSLOW = True\n")
except OSError:
    pass
print(json.dumps({"m": (200.0 if slow else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "1.0"}, "env": {"X": "a"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "2.0"}, "env": {"X": "b"}}' >"$T/bad.json"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" --store "$T/store" \
  --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "packages/p 1.0 -> 2.0"
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
damaged = [r for r in records if r["type"] == "build" and "damaged" in r]
assert damaged, "no rebuild after the benchmark changed its environment"
assert all(r["ok"] for r in damaged), damaged
assert any(r["damaged"]["after_attempt"] is not None for r in damaged), damaged
assert all(any(f.endswith("p/__init__.py") for f in r["damaged"]["files"]) for r in damaged), damaged
metrics = {}
for r in records:
    if r["type"] == "attempt" and r["status"] == "ok":
        metrics.setdefault(r["env_hash"], []).append(r["metric"] < 500)
assert all(len(set(v)) == 1 for v in metrics.values()), ("an environment measured two ways", metrics)
PY
# The report says which environment was rebuilt, what changed and after which run (not the journal alone).
grep -Eq "^- changed by a benchmark: environment [0-9a-f]{12} was rebuilt: [0-9]+ files? changed \(.*p/__init__\.py.*\) after run [0-9]+ of " \
  "$T/run/report.md" || { echo "report.md does not flag the changed environment:"; grep -n "changed by" "$T/run/report.md"; exit 1; }
rc=0
"$ENVBISECT" store verify --store "$T/store" >"$T/verify.txt" || rc=$?
[[ $rc -eq 1 ]] || { echo "expected store verify to find the last attempt's damage (exit 1), got $rc"; cat "$T/verify.txt"; exit 1; }
expect_contains "$T/verify.txt" "damaged dists/p-"
expect_contains "$T/verify.txt" "site/p/__init__.py"
rm -rf "$T/store/envs" "$T/store/v1/dists"
"$ENVBISECT" store verify --store "$T/store" >"$T/verify2.txt"
expect_contains "$T/verify2.txt" "intact"
