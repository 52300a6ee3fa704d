#!/usr/bin/env bash
# The versions between a package's good and bad ends come from the index too: good pins p 1.0, bad
# p 4.0, the index (a PEP 503 page, read as an index and as a --find-links page) lists 2.0 and 3.0; the run
# downloads them, refines the versions axis and names 3.0 as the first bad version. --dry-run lists
# the inner builds it would fetch, with their hashes.
source "$(dirname "$0")/common.sh"
SERVERS=()
trap 'rc=$?; for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done; (exit $rc); _cli_on_exit' EXIT
for v in 1.0 2.0 3.0 4.0; do
  mkdir -p "$T/src/$v/p" && echo "BROKEN = $([[ $v == 1.0 || $v == 2.0 ]] && echo False || echo True)" >"$T/src/$v/p/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name p --version "$v" --src "$T/src/$v" --out "$T/index/files" >/dev/null
done
mkdir -p "$T/index/simple/p"
{ echo '<html><body>'
  for f in "$T"/index/files/*.whl; do
    echo "<a href=\"/files/$(basename "$f")#sha256=$(sha256sum "$f" | cut -d' ' -f1)\">$(basename "$f")</a>"
  done
  echo '</body></html>'; } >"$T/index/simple/p/index.html"
"$PY" "$SRC/tests/cli/index_server.py" "$T/index" "$T/port" "$T/server.log" &
SERVERS+=($!)
for _ in $(seq 100); do [[ -s "$T/port" ]] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$T/port")/simple"

cat >"$T/bench.py" <<'PY'
import json, p
print(json.dumps({"m": 200.0 if p.BROKEN else 1000.0}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "1.0"}, "env": {"A": "1"}}' >"$T/good.json"
echo '{"format": 1, "python": {"version": "3.11"}, "packages": {"p": "4.0"}, "env": {"A": "2"}}' >"$T/bad.json"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --index-url "$URL" --store "$T/store" \
  --uv-cache "$T/no-uv" --dry-run >"$T/dry.txt"
expect_contains "$T/dry.txt" "refine: /packages/p 2.0 <- index http://127.0.0.1:$(cat "$T/port")/files/p-2.0-py3-none-any.whl (sha256 $(sha256sum "$T/index/files/p-2.0-py3-none-any.whl" | cut -d' ' -f1))"
expect_contains "$T/dry.txt" "refine: /packages/p 3.0 <- index"
# The same page as a --find-links page (links to wheels of any project) gives the same sources.
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --find-links "$URL/p/" --store "$T/store" \
  --uv-cache "$T/no-uv" --dry-run >"$T/dry-links.txt"
expect_contains "$T/dry-links.txt" "restore: $T/bad.json /packages/p 4.0 <- index http://127.0.0.1:$(cat "$T/port")/files/p-4.0-py3-none-any.whl"
expect_contains "$T/dry-links.txt" "refine: /packages/p 3.0 <- index"

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --index-url "$URL" --store "$T/store" \
  --uv-cache "$T/no-uv" --no-probe --out "$T/run" >"$T/out.txt"
expect_contains "$T/out.txt" "refine packages/p over 2 inner versions:"
expect_contains "$T/out.txt" "first bad versions: 3.0 (last good 2.0)"
