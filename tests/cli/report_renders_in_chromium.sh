#!/usr/bin/env bash
# The HTML report renders in a real browser: Debian's chromium loads it headless with no console
# message (the page has no script and fetches nothing), the DOM holds the SVG plots, and a screenshot
# (light and dark) lands in the build's test-output/ folder for a person to look at.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

need chromium chromium
OUT="${ENVBISECT_TEST_OUTPUT:-$(dirname "$ENVBISECT")/test-output}/report_renders_in_chromium"
mkdir -p "$OUT"

F="$SRC/fixtures/scenarios/flags"
"$ENVBISECT" run "$F/good.json" "$F/bad.json" --recipe "$F/recipe.json" --out "$T/run" > "$T/run.out"
"$ENVBISECT" report "$T/run" --format html > /dev/null
PAGE="file://$T/run/report.html"
chrome=(chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/profile")

# Load it, let it settle, dump the DOM; console messages go to stderr with --enable-logging.
"${chrome[@]}" --enable-logging=stderr --v=0 --run-all-compositor-stages-before-draw --virtual-time-budget=2000 \
  --dump-dom "$PAGE" > "$T/dom.html" 2> "$T/console.log"
expect_contains "$T/dom.html" "cause found: 2 differences, together, verified both ways"
svgs=$(grep -o '<svg ' "$T/dom.html" | wc -l)
[[ $svgs -ge 3 && $svgs -eq $(grep -o '<svg ' "$T/run/report.html" | wc -l) ]] || { echo "svg elements in the DOM: $svgs" >&2; exit 1; }
for plot in plot-metric plot-anchors plot-progress; do expect_contains "$T/dom.html" "id=\"$plot\""; done
if grep -E 'CONSOLE|Uncaught|Failed to load resource|net::ERR_' "$T/console.log"; then
  echo "the page logged console messages or failed loads (above)" >&2
  exit 1
fi

# Screenshots, light and dark, 1200x3000.
"${chrome[@]}" --hide-scrollbars --screenshot="$T/report.png" --window-size=1200,3000 "$PAGE" 2> "$T/shot.log"
"${chrome[@]}" --hide-scrollbars --force-dark-mode --screenshot="$T/report-dark.png" --window-size=1200,3000 \
  "$PAGE" 2> "$T/shot-dark.log"
for png in report.png report-dark.png; do
  "$PY" - "$T/$png" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", data[16:24])
assert (width, height) == (1200, 3000), (width, height)
assert len(data) > 20000, "suspiciously small screenshot: %d bytes" % len(data)
PY
  cp "$T/$png" "$OUT/$png"
done
cp "$T/run/report.html" "$OUT/report.html"
echo "report_renders_in_chromium: ok ($svgs svg plots; screenshots in $OUT)"
