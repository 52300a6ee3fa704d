#!/usr/bin/env bash
# An index that misbehaves ends the run before anything is written, with one clear error naming the
# URL (credentials redacted) and exit 2: HTML garbage, a redirect loop, a 404 (the restore check lists
# every build it lacks at once), a file that 404s, a hash mismatch (naming file, expected and got; no
# download kept), a stalled server (--index-timeout). Credentials (in the URL or ~/.netrc) are sent
# to the index but never reach stderr or stdout.
source "$(dirname "$0")/common.sh"
SERVERS=()
trap 'rc=$?; for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done; (exit $rc); _cli_on_exit' EXIT

for label in cu128 cu130; do
  mkdir -p "$T/src/$label/fauxtorch" && echo "X = 1" >"$T/src/$label/fauxtorch/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name fauxtorch --version "2.11.0+$label" --src "$T/src/$label" \
    --out "$T/index/files" >/dev/null
done
mkdir -p "$T/index/mismatch/fauxtorch" "$T/index/gone/fauxtorch"
WRONG="$(printf "0%.0s" {1..64})"
cat >"$T/index/mismatch/fauxtorch/index.html" <<HTML
<html><body>
<a href="/files/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl#sha256=$WRONG">a</a>
<a href="/files/fauxtorch-2.11.0%2Bcu130-py3-none-any.whl#sha256=$WRONG">b</a>
</body></html>
HTML
cat >"$T/index/gone/fauxtorch/index.html" <<HTML
<html><body><a href="/files/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl">a</a>
<a href="/nowhere/fauxtorch-2.11.0%2Bcu130-py3-none-any.whl">b</a></body></html>
HTML
"$PY" "$SRC/tests/cli/index_server.py" "$T/index" "$T/port" "$T/server.log" &
SERVERS+=($!)
for _ in $(seq 100); do [[ -s "$T/port" ]] && break; sleep 0.1; done
URL="http://alice:s3cret-pw@127.0.0.1:$(cat "$T/port")"
SHOWN="http://<redacted>@127.0.0.1:$(cat "$T/port")"

state() { echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"fauxtorch\": \"2.11.0+$1\", \"other\": \"1.0\"}}"; }
state cu128 >"$T/good.json"
state cu130 >"$T/bad.json"
echo '{"format": 1, "command": ["{python}", "-c", "print(1)"], "metric": "m"}' >"$T/recipe.json"

bad() {  # bad EXPECTED-TEXT RUN-ARGS...: exit 2, the text on stderr, no run folder, no download, no secret
  local text="$1" rc=0; shift
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --store "$T/store" --uv-cache "$T/no-uv" \
    --out "$T/run" "$@" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
  [[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc for $*"; cat "$T/err.txt"; exit 1; }
  expect_contains "$T/err.txt" "$text"
  [[ ! -e "$T/run" ]] || { echo "wrote $T/run for $*"; exit 1; }
  [[ -z "$(find "$T/store" -name '*.whl' 2>/dev/null)" ]] || { echo "kept a download for $*"; exit 1; }
  not grep -l "s3cret" "$T/err.txt" "$T/out.txt"
}

# Offline, every missing build of both states is listed at once.
bad "$T/good.json: /packages/fauxtorch: fauxtorch==2.11.0+cu128 is in no wheel folder or uv cache" --offline --index-url "$URL/mismatch"
expect_contains "$T/err.txt" "$T/good.json: /packages/other: other==1.0 is in no wheel folder or uv cache"
expect_contains "$T/err.txt" "$T/bad.json: /packages/fauxtorch: fauxtorch==2.11.0+cu130 is in no wheel folder"
[[ ! -e "$T/server.log" ]] || not grep -q . "$T/server.log"  # --offline asked nothing

bad "$SHOWN/garbage/fauxtorch/: not a package index page" --index-url "$URL/garbage"
bad "$SHOWN/loop/fauxtorch/: cannot fetch the index page: Maximum (10) redirects followed" --index-url "$URL/loop"
# A 404 project page: the index lacks it; what no source has is listed, naming the page looked in.
bad "$T/good.json: /packages/other: other==1.0 is in no wheel folder or uv cache (no build of other at all); other==1.0: not on the index (no wheel of other at all) (looked in $SHOWN/mismatch/other/)" \
  --index-url "$URL/mismatch"
expect_contains "$T/err.txt" "$T/bad.json: /packages/other"
mkdir -p "$T/index/mismatch/other" && echo '<html></html>' >"$T/index/mismatch/other/index.html"
mkdir -p "$T/index/gone/other" && echo '<html></html>' >"$T/index/gone/other/index.html"
mkdir -p "$T/src/other/other" && echo "X = 1" >"$T/src/other/other/__init__.py"
"$PY" "$SRC/scripts/make_wheel.py" --name other --version 1.0 --src "$T/src/other" --out "$T/wheels" >/dev/null
bad "fauxtorch-2.11.0+cu128-py3-none-any.whl from $SHOWN/files/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl: sha256 mismatch: expected $WRONG, got $(sha256sum "$T/index/files/fauxtorch-2.11.0+cu128-py3-none-any.whl" | cut -d' ' -f1)" \
  --index-url "$URL/mismatch" --wheels "$T/wheels"
bad "$SHOWN/nowhere/fauxtorch-2.11.0%2Bcu130-py3-none-any.whl: download failed: The requested URL returned error: 404" \
  --index-url "$URL/gone" --wheels "$T/wheels"
start=$SECONDS
bad "$SHOWN/slow/fauxtorch/: cannot fetch the index page: timed out" --index-url "$URL/slow" --index-timeout 2
(( SECONDS - start < 30 )) || { echo "the stalled index took $((SECONDS - start)) s"; exit 1; }
# The server was asked with the credentials the URL gave (so they were used, and still never shown).
grep -q "auth=True" "$T/server.log"

# Credentials from ~/.netrc are sent to the index they name, and shown nowhere either.
mkdir -p "$T/home" && printf 'machine 127.0.0.1\nlogin bob\npassword netrc-s3cret\n' >"$T/home/.netrc"
chmod 600 "$T/home/.netrc"
: >"$T/server.log"
HOME="$T/home" bad "http://127.0.0.1:$(cat "$T/port")/garbage/fauxtorch/: not a package index page" \
  --index-url "http://127.0.0.1:$(cat "$T/port")/garbage"
grep -q "GET /garbage/fauxtorch/ auth=True" "$T/server.log"

# A --find-links folder that is not one is refused by name.
bad "--find-links $T/missing: not a readable directory nor an http(s) URL" --find-links "$T/missing"
