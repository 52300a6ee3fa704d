#!/usr/bin/env bash
# Every transfer from an index ends when it should: a page trickled at 2.5 bytes/s ends at
# --index-timeout (the whole transfer, not only a stall below 1 byte/s); a wheel trickled at 1.5 KiB/s
# (above the 1 KiB/s stall rule) ends at --download-timeout, leaving no partial file; a PEP 691 page nested two
# million levels deep is refused before it is parsed; Ctrl-C (and TERM) end a page fetch or a wheel
# download within a second or two, exit 130, with no partial file left; a partial file left by a
# kill -9 is swept by the next run.
source "$(dirname "$0")/common.sh"
SERVERS=()
trap 'rc=$?; for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done; (exit $rc); _cli_on_exit' EXIT
for label in cu128 cu130; do
  mkdir -p "$T/src/$label/fauxtorch" && echo "X = 1" >"$T/src/$label/fauxtorch/__init__.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name fauxtorch --version "2.11.0+$label" --src "$T/src/$label" \
    --out "$T/index/files" >/dev/null
done
mkdir -p "$T/index/stalls/fauxtorch"
cat >"$T/index/stalls/fauxtorch/index.html" <<HTML
<html><body><a href="/stall/fauxtorch-2.11.0%2Bcu128-py3-none-any.whl">a</a>
<a href="/stall/fauxtorch-2.11.0%2Bcu130-py3-none-any.whl">b</a></body></html>
HTML
mkdir -p "$T/index/trickles/fauxtorch"
sed 's|/stall/|/trickle-file/|' "$T/index/stalls/fauxtorch/index.html" >"$T/index/trickles/fauxtorch/index.html"
"$PY" "$SRC/tests/cli/index_server.py" "$T/index" "$T/port" "$T/server.log" &
SERVERS+=($!)
for _ in $(seq 100); do [[ -s "$T/port" ]] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$T/port")"
state() { echo "{\"format\": 1, \"python\": {\"version\": \"3.11\"}, \"packages\": {\"fauxtorch\": \"2.11.0+$1\"}}"; }
state cu128 >"$T/good.json"
state cu130 >"$T/bad.json"
echo '{"format": 1, "command": ["{python}", "-c", "print(1)"], "metric": "m"}' >"$T/recipe.json"
run() { "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --store "$T/store" \
  --uv-cache "$T/no-uv" --out "$T/run" "$@"; }
partials() { find "$T/store" -name '.*.tmp*' 2>/dev/null | wc -l; }

# A trickled page: ended by the deadline (it passes any "1 byte/s" stall rule).
start=$SECONDS; rc=0
run --index-url "$URL/trickle" --index-timeout 3 >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 2 ]] || { cat "$T/err.txt"; echo "trickle: exit $rc"; exit 1; }
expect_contains "$T/err.txt" "/trickle/fauxtorch/: cannot fetch the index page: timed out"
(( SECONDS - start < 10 )) || { echo "the trickled page took $((SECONDS - start)) s"; exit 1; }

# A wheel trickled just above the stall rule: ended by the whole-download deadline, nothing kept.
# (`timeout` bounds the test where no deadline holds: the file would take two hours.)
start=$SECONDS; rc=0
timeout -s KILL 60 "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --store "$T/store" \
  --uv-cache "$T/no-uv" --out "$T/run" --index-url "$URL/trickles" --download-timeout 3 >"$T/out.txt" 2>"$T/err.txt" ||
  rc=$?
[[ $rc -eq 2 ]] || { cat "$T/err.txt"; echo "trickled wheel: exit $rc"; exit 1; }
expect_contains "$T/err.txt" "not done in 3 s (the whole-download limit; raise it with --download-timeout)"
(( SECONDS - start < 15 )) || { echo "the trickled wheel took $((SECONDS - start)) s"; exit 1; }
[[ $(partials) -eq 0 ]] || { find "$T/store" -name '.*.tmp*'; echo "the trickled wheel's partial file was left"; exit 1; }

# A page nested 2,000,000 levels deep: refused by its structure, in bounded memory.
rc=0
/usr/bin/time -f '%M' -o "$T/rss" "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" \
  --store "$T/store" --uv-cache "$T/no-uv" --out "$T/run" --index-url "$URL/deep" >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[[ $rc -eq 2 ]] || { cat "$T/err.txt"; echo "deep: exit $rc"; exit 1; }
expect_contains "$T/err.txt" "not a PEP 691 JSON page"
expect_contains "$T/err.txt" "nested deeper than 128 levels"
(( $(tail -n 1 "$T/rss") < 200000 )) || { echo "deep page: max RSS $(tail -n 1 "$T/rss") KiB"; exit 1; }

# interrupt SIGNAL CONDITION INDEX: start a run on INDEX, wait for CONDITION, send SIGNAL; exit 130 within 2 s.
interrupt() {
  local signal="$1" condition="$2" pid rc=0
  # envbisect itself in the background (not the `run` function: $! would be the subshell).
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --store "$T/store" --uv-cache "$T/no-uv" \
    --out "$T/run" --index-url "$URL/$3" --index-timeout 60 >"$T/out.txt" 2>"$T/err.txt" &
  pid=$!
  for _ in $(seq 100); do eval "$condition" && break; sleep 0.1; done
  eval "$condition" || { echo "never reached: $condition"; cat "$T/err.txt"; exit 1; }
  local before=$SECONDS
  kill "-$signal" "$pid"
  wait "$pid" || rc=$?
  [[ $rc -eq 130 ]] || { cat "$T/err.txt"; echo "$signal during $3: exit $rc, expected 130"; exit 1; }
  (( SECONDS - before <= 2 )) || { echo "$signal took $((SECONDS - before)) s"; exit 1; }
}
# During a page that never comes (the server sleeps 60 s).
interrupt INT 'grep -q "GET /slow/" "$T/server.log" 2>/dev/null' slow
expect_contains "$T/err.txt" "interrupted"
# During a wheel download that stalls after 64 kB: the partial file is removed on the way out.
interrupt TERM '[[ $(partials) -gt 0 ]]' stalls
[[ $(partials) -eq 0 ]] || { find "$T/store" -name '.*.tmp*'; echo "a partial download was left"; exit 1; }

# kill -9 leaves the partial file; the next run sweeps it at its start (an offline one too).
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --store "$T/store" --uv-cache "$T/no-uv" \
  --out "$T/run" --index-url "$URL/stalls" >"$T/out.txt" 2>"$T/err.txt" &
pid=$!
for _ in $(seq 100); do [[ $(partials) -gt 0 ]] && break; sleep 0.1; done
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
[[ $(partials) -eq 1 ]]
run --offline >"$T/out.txt" 2>"$T/err.txt" || true
[[ $(partials) -eq 0 ]] || { find "$T/store" -name '.*.tmp*'; echo "the killed run's partial download was not swept"; exit 1; }
