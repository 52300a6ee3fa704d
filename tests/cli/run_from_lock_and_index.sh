#!/usr/bin/env bash
# A PyTorch user's path with no wheel folder: two commits of a uv.lock (torch +cu128 -> +cu130),
# `envbisect state --at` makes good.json and bad.json, the wheels come from per-CUDA indexes on
# 127.0.0.1 (a PEP 503 tree served by `python3 -m http.server`, and a PEP 691 JSON index), and `run`
# names the package. Each wheel is downloaded once, checked against its sha256; a second run works
# --offline from the store, and with --builder installer; index credentials appear in no file of the
# runs and not on stderr.
source "$(dirname "$0")/common.sh"
SERVERS=()
trap 'rc=$?; for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done; (exit $rc); _cli_on_exit' EXIT

# The wheels: fauxtorch in two CUDA flavours (the benchmark is slow on cu130), fauxnumpy unchanged.
for label in cu128 cu130; do
  mkdir -p "$T/src/$label/fauxtorch"
  echo "SLOW = '$label' == 'cu130'" >"$T/src/$label/fauxtorch/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name fauxtorch --version "2.11.0+$label" --src "$T/src/$label" \
    --out "$T/index/files/$label" >/dev/null
done
mkdir -p "$T/src/np/fauxnumpy" && echo "X = 1" >"$T/src/np/fauxnumpy/__init__.py"
"$PY" "$SRC/scripts/make_wheel.py" --name fauxnumpy --version 1.26.4 --src "$T/src/np" --out "$T/index/files/pypi" >/dev/null
sha() { sha256sum "$1" | cut -d' ' -f1; }
T128="$T/index/files/cu128/fauxtorch-2.11.0+cu128-py3-none-any.whl"
T130="$T/index/files/cu130/fauxtorch-2.11.0+cu130-py3-none-any.whl"
NP="$T/index/files/pypi/fauxnumpy-1.26.4-py3-none-any.whl"

# Index cu128 and pypi: PEP 503 HTML pages, as a static tree.
page() {  # page DIR FILE...: a PEP 503 project page linking each file with its sha256
  mkdir -p "$1"
  { echo '<!DOCTYPE html><html><body>'
    for f in "${@:2}"; do
      local name; name="$(basename "$f")"
      echo "<a href=\"../../../files/$(basename "$(dirname "$f")")/${name/+/%2B}#sha256=$(sha "$f")\">$name</a><br/>"
    done
    echo '</body></html>'; } >"$1/index.html"
}
page "$T/index/whl/cu128/fauxtorch" "$T128"
page "$T/index/whl/pypi/fauxnumpy" "$NP"
# Index cu130: PEP 691 JSON only (the server refuses a client that does not ask for JSON).
mkdir -p "$T/index/json/cu130/fauxtorch"
cat >"$T/index/json/cu130/fauxtorch/index.json" <<JSON
{"meta": {"api-version": "1.1"}, "name": "fauxtorch", "files": [
  {"filename": "fauxtorch-2.11.0+cu130-py3-none-any.whl", "url": "/files/cu130/fauxtorch-2.11.0%2Bcu130-py3-none-any.whl",
   "hashes": {"sha256": "$(sha "$T130")"}}]}
JSON

port_free() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
P1="$(port_free)"
"$PY" -m http.server --bind 127.0.0.1 --directory "$T/index" "$P1" 2>"$T/http.log" >/dev/null &
SERVERS+=($!)
"$PY" "$SRC/tests/cli/index_server.py" "$T/index" "$T/port2" "$T/json.log" &
SERVERS+=($!)
for _ in $(seq 100); do
  [[ -s "$T/port2" ]] && "$PY" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$P1/')" 2>/dev/null && break
  sleep 0.1
done
P2="$(cat "$T/port2")"
CU128="http://alice:s3cret-pw@127.0.0.1:$P1/whl/cu128"
PYPI="http://127.0.0.1:$P1/whl/pypi/"
CU130="http://127.0.0.1:$P2/json/cu130"

# The lock at two commits: the green tag pinned cu128, HEAD pulled cu130.
R="$T/trainer"
git init -q -b main "$R"
git -C "$R" config user.name t && git -C "$R" config user.email t@example.org
lock() {  # lock LABEL WHEEL
  cat <<TOML
version = 1
revision = 3
requires-python = ">=3.11"

[[package]]
name = "trainer"
version = "0.1.0"
source = { editable = "." }
dependencies = [{ name = "fauxtorch" }, { name = "fauxnumpy" }]

[[package]]
name = "fauxtorch"
version = "2.11.0+$1"
source = { registry = "https://download.pytorch.org/whl/$1" }
wheels = [{ url = "https://download.pytorch.org/whl/$1/fauxtorch-2.11.0%2B$1-py3-none-any.whl", hash = "sha256:$(sha "$2")" }]

[[package]]
name = "fauxnumpy"
version = "1.26.4"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://files.example/fauxnumpy-1.26.4-py3-none-any.whl", hash = "sha256:$(sha "$NP")" }]
TOML
}
lock cu128 "$T128" >"$R/uv.lock" && git -C "$R" add uv.lock && git -C "$R" commit -qm green && git -C "$R" tag v1.4
lock cu130 "$T130" >"$R/uv.lock" && git -C "$R" commit -qam "pull torch cu130"
"$ENVBISECT" state "$R/uv.lock" --at v1.4 --python 3.11 -o "$T/good.json" 2>/dev/null
"$ENVBISECT" state "$R/uv.lock" --at HEAD --python 3.11 -o "$T/bad.json" 2>/dev/null

cat >"$T/bench.py" <<'PY'
import json, fauxnumpy, fauxtorch
print(json.dumps({"samples_per_s": 300.0 if fauxtorch.SLOW else 1000.0}))
PY
echo '{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py"], "metric": "samples_per_s", "repeats": 3}' >"$T/recipe.json"
INDEXES=(--index-url "$CU128" --index-url "$PYPI" --index-url "$CU130")

# --dry-run: the sources of every package, nothing downloaded.
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" "${INDEXES[@]}" --store "$T/store" \
  --uv-cache "$T/no-uv" --dry-run >"$T/dry.txt" 2>"$T/dry.err"
expect_contains "$T/dry.txt" "restore: $T/good.json /packages/fauxtorch 2.11.0+cu128 <- index http://<redacted>@127.0.0.1:$P1/files/cu128/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl (sha256 $(sha "$T128"))"
expect_contains "$T/dry.txt" "restore: $T/bad.json /packages/fauxtorch 2.11.0+cu130 <- index http://127.0.0.1:$P2/files/cu130/fauxtorch-2.11.0%2Bcu130-py3-none-any.whl"
expect_contains "$T/dry.txt" "restore: $T/bad.json /packages/fauxnumpy 1.26.4 <- index http://127.0.0.1:$P1/files/pypi/fauxnumpy-1.26.4-py3-none-any.whl"
[[ ! -e "$T/store/v1/downloads" ]] || [[ -z "$(ls -A "$T/store/v1/downloads")" ]]

"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" "${INDEXES[@]}" --store "$T/store" \
  --uv-cache "$T/no-uv" --no-probe --out "$T/run" >"$T/out.txt" 2>"$T/err.txt"
expect_contains "$T/out.txt" "cause (1 difference):"
expect_contains "$T/out.txt" "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130"
# Each wheel was downloaded once, into the store's download area, and is the indexed file.
[[ $(grep -c "GET /files/cu128/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl" "$T/http.log") -eq 1 ]]
[[ $(grep -c "GET /files/cu130/fauxtorch-2.11.0%2Bcu130-py3-none-any.whl" "$T/json.log") -eq 1 ]]
cmp "$T/store/v1/downloads/sha256-$(sha "$T130")/fauxtorch-2.11.0+cu130-py3-none-any.whl" "$T130"

# Again, --offline: the store's downloads are the source now; no index is asked.
: >"$T/json.log"
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" "${INDEXES[@]}" --offline --store "$T/store" \
  --uv-cache "$T/no-uv" --no-probe --out "$T/run2" >"$T/out2.txt" 2>>"$T/err.txt"
expect_contains "$T/out2.txt" "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130"
[[ ! -s "$T/json.log" ]]
[[ $(grep -c "GET /files/" "$T/http.log") -eq 2 ]]

# The installer builder (uv or pip, --no-index) takes the same downloaded wheels.
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" "${INDEXES[@]}" --builder installer \
  --store "$T/store" --uv-cache "$T/no-uv" --no-probe --out "$T/run3" >"$T/out3.txt" 2>>"$T/err.txt"
expect_contains "$T/out3.txt" "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130"
[[ $(grep -c "GET /files/" "$T/http.log") -eq 2 ]]

# The credentials of the cu128 index are in no file of any run and not on stderr or stdout.
not grep -rl "s3cret" "$T/run" "$T/run2" "$T/run3" "$T/err.txt" "$T/out.txt" "$T/out2.txt" "$T/out3.txt" "$T/dry.txt" "$T/dry.err"
