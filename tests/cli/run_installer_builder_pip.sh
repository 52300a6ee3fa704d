#!/usr/bin/env bash
# `--builder installer` makes each candidate with the installer (uv when on PATH, here pip: venv
# --without-pip + pip --no-index from the wheel folder) and finds the interaction.
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
print(json.dumps({"m": (200.0 if p.NEW and q.NEW else 1000.0) * (1 + os.getpid() % 7 / 100)}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
state() { echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"p\": \"$1\", \"q\": \"$1\", \"r\": \"$1\"}}"; }
state 1.0 >"$T/good.json"
state 2.0 >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --wheels "$W" \
  --builder installer --no-probe --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "cause (2 differences, together):"
expect_contains "$T/out.txt" "packages/p 1.0 -> 2.0"
expect_contains "$T/out.txt" "packages/q 1.0 -> 2.0"
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, shutil, sys
builds = [json.loads(l) for l in open(sys.argv[1]) if '"type":"build"' in l]
want = "uv" if shutil.which("uv") else "pip"
assert builds and all(b["ok"] and b["builder"] == want for b in builds), builds
PY
